//! Which binary made a result: its version, commit and build. Only the
//! binary's crate knows them (its build script records them: src/build_info.rs
//! there); the layers below are given them as this value.

/// How the running binary was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binary {
    pub version: &'static str,
    /// The git commit, "-dirty" when the work tree had changes; None when
    /// the binary was not built from a git checkout.
    pub git_commit: Option<&'static str>,
    /// "release" or "debug".
    pub profile: &'static str,
    pub opt_level: &'static str,
    /// The target CPU the Rust code and the bundled C/C++ were compiled for.
    pub target_cpu: &'static str,
    /// The C/C++ compiler's version line.
    pub cxx: &'static str,
}

impl Binary {
    /// What a unit test of a library crate records: no build script told it.
    pub const UNRECORDED: Binary = Binary {
        version: env!("CARGO_PKG_VERSION"),
        git_commit: None,
        profile: "unrecorded",
        opt_level: "unrecorded",
        target_cpu: "unrecorded",
        cxx: "unrecorded",
    };

    /// Whether this is an optimised build; a debug build's figures mean little.
    pub fn optimised(&self) -> bool {
        self.profile == "release" && self.opt_level != "0"
    }

    /// The build as (name, value) pairs, for results.
    pub fn summary(&self) -> Vec<(String, String)> {
        vec![
            ("profile".into(), self.profile.into()),
            ("opt_level".into(), self.opt_level.into()),
            ("target_cpu".into(), self.target_cpu.into()),
            ("cxx".into(), self.cxx.into()),
        ]
    }
}
