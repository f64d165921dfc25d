//! `rumbench engines [NAME]`: every engine and server with its options,
//! defaults, presets and how it is built; what this build leaves out.

use anyhow::Result;
use rumbench::{engine, outln};

pub fn run(name: Option<&str>) -> Result<()> {
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
