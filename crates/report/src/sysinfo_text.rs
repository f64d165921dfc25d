//! Text rendering of the captured environment (rumbench sysinfo).

use serde_json::Value;

/// A probe is {"value": x} or {"unavailable": reason}; plain values pass through.
fn show(v: &Value) -> String {
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("value") => show(&m["value"]),
        Value::Object(m) if m.len() == 1 && m.contains_key("unavailable") => {
            format!("unavailable ({})", m["unavailable"].as_str().unwrap_or("?"))
        }
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) if !(m.len() == 1 && (m.contains_key("value") || m.contains_key("unavailable"))) => {
            for (k, x) in m {
                walk(&if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, x, out);
            }
        }
        Value::Object(m) if m.contains_key("value") && m["value"].is_object() => walk(prefix, &m["value"], out),
        Value::Array(a) if a.iter().any(|x| x.is_object()) => {
            for (i, x) in a.iter().enumerate() {
                walk(&format!("{prefix}[{i}]"), x, out);
            }
        }
        other => out.push((prefix.to_string(), show(other))),
    }
}

pub fn lines(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

pub fn print(v: &Value) {
    let rows = lines(v);
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, val) in rows {
        outln!("{k:w$}  {val}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_and_nesting_flatten() {
        let v: Value = serde_json::json!({
            "cpu_model": {"value": "Xeon"},
            "governor": {"unavailable": "no cpufreq"},
            "data_dir": {"value": {"fs_device": "vda", "space": {"value": {"percent_full": 13.5}}}},
        });
        let l = lines(&v);
        assert!(l.contains(&("cpu_model".into(), "Xeon".into())));
        assert!(l.contains(&("governor".into(), "unavailable (no cpufreq)".into())));
        assert!(l.contains(&("data_dir.fs_device".into(), "vda".into())));
        assert!(l.contains(&("data_dir.space.percent_full".into(), "13.5".into())));
    }
}
