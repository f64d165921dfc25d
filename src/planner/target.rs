//! `--target URL`: a server the user runs, as a config (its engine, its name
//! after the host and port, its password kept out of the plan's options).

use anyhow::{bail, Context, Result};

use super::suite::{ConfigEntry, MAX_CONFIG_NAME};
use crate::engine;
use crate::plan::Mode;
use crate::server::endpoint::TargetUrl;

/// The config a `--target URL` names: engine postgres for postgres://,
/// mariadb-innodb for mysql:// (InnoDB tables; `-e mariadb-myrocks -o
/// target=...` for MyRocks), named after the host and port.
pub(super) fn target_entry(url: &str) -> Result<ConfigEntry> {
    let parsed = TargetUrl::parse(url)?;
    let engine = match parsed.scheme {
        "postgres" => "postgres",
        "mongodb" => "mongodb",
        _ => "mariadb-innodb",
    };
    let host: String =
        parsed.host.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
    let name = match parsed.port {
        Some(p) => format!("{engine}-{host}-{p}"),
        None => format!("{engine}-{host}"),
    };
    // A host name too long for a config name: its start and a hash of the
    // whole, so two long hosts still get two names.
    let name = if name.len() > MAX_CONFIG_NAME {
        let hash = crate::datagen::rng::stream_seed(
            0,
            &[name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))],
        );
        format!("{}-{:08x}", &name[..MAX_CONFIG_NAME - 9], hash as u32)
    } else {
        name
    };
    let mut options = toml::Table::new();
    options.insert("target".into(), toml::Value::String(url.to_string()));
    Ok(ConfigEntry { name: Some(name), options, ..ConfigEntry::of_engine(engine) })
}

/// A server engine's `target` option: checked, stored without its password
/// (which is returned, to reach the config process through its environment).
pub(super) fn take_target_password(
    engine: &str,
    options: &mut engine::EngineOptions,
    server_config: &[String],
    mode: Mode,
) -> Result<Option<String>> {
    let Some(url) = options.0.get("target").filter(|u| !u.is_empty()).cloned() else { return Ok(None) };
    let kind = crate::server::kind_of(engine).context("only server engines take a target")?;
    let parsed = TargetUrl::parse(&url)?;
    crate::server::endpoint::check_target(&parsed, kind)?;
    if !server_config.is_empty() {
        bail!(
            "server config lines cannot be applied to a server rumbench does not start ({})",
            parsed.without_password()
        );
    }
    if mode == Mode::IoBound {
        bail!(
            "io-bound mode drops this machine's page cache, which does not make a server on {} cold",
            parsed.without_password()
        );
    }
    options.0.insert("target".into(), parsed.without_password());
    // How the clients reach it, as recorded: the URL says (a socket path as host, or TCP).
    if kind != crate::server::ServerKind::Mongodb {
        options.0.insert("connect".into(), if parsed.socket_host().is_some() { "unix" } else { "tcp" }.into());
    }
    Ok(parsed.password)
}
