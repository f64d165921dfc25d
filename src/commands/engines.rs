//! `rumbench engines [NAME]`: every engine and server with its options,
//! defaults, presets and how it is built; what this build leaves out.

use anyhow::Result;
use rumbench::{engine, outln};

pub fn run(name: Option<&str>) -> Result<()> {
    // An engine from a library: the options it describes (an append to the ABI).
    if let Some(path) =
        name.and_then(|n| n.split_once(':')).filter(|(kind, _)| *kind == engine::LIBRARY_ENGINE).map(|(_, p)| p)
    {
        let spec = rumbench::backend::find(engine::LIBRARY_ENGINE)?;
        outln!("{} - {}: {path}", spec.name, spec.description);
        match engine::library_options(std::path::Path::new(path))? {
            None => outln!("    (it describes no options: its option_docs is NULL, or its table ends before it)"),
            Some(docs) if docs.is_empty() => outln!("    (no options)"),
            Some(docs) => {
                let w = docs.iter().map(|(n, _, _)| n.len()).max().unwrap_or(0);
                for (n, default, help) in docs {
                    outln!("    {n:w$}  default {default:<10} {help}");
                }
            }
        }
        return Ok(());
    }
    let specs: Vec<&engine::EngineSpec> = match name {
        Some(n) => vec![rumbench::backend::find(n)?],
        None => rumbench::backend::registry(),
    };
    for spec in specs {
        outln!("{} - {}", spec.name, spec.description);
        if spec.options.is_empty() {
            outln!("    (no options)");
        }
        let w = spec.options.iter().map(|o| o.name.len()).max().unwrap_or(0);
        for o in spec.options {
            outln!("    {:w$}  default {:<10} {} [{}]", o.name, o.default, o.help, engine::describe_kind(o.kind));
        }
        for (preset, opts) in spec.presets {
            let list: Vec<String> = opts.iter().map(|(k, v)| format!("{k}={v}")).collect();
            outln!("    preset {}:{preset} (config {}-{preset}): {}", spec.name, spec.name, list.join(" "));
        }
        for (k, v) in (spec.build_info)() {
            outln!("    {k}: {v}");
        }
        outln!();
    }
    if name.is_none() {
        for l in engine::left_out() {
            outln!("{} - {}: not in this build; make a build with it: {}", l.name, l.description, l.how_to_build);
            outln!();
        }
    }
    Ok(())
}
