//! The raw system calls more than one module makes, each wrapped once with
//! its safety argument (a leaf).

/// This process's parent as it was when watched. A process whose parent
/// dies is given another (init, or a subreaper): a different parent id
/// says the one that started it is gone.
pub struct ParentWatch(libc::pid_t);

impl ParentWatch {
    pub fn now() -> ParentWatch {
        // SAFETY: getppid has no preconditions and cannot fail.
        ParentWatch(unsafe { libc::getppid() })
    }

    /// The parent watched has died since.
    pub fn died(&self) -> bool {
        // SAFETY: as in `now`.
        unsafe { libc::getppid() != self.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_living_parent_has_not_died() {
        let w = ParentWatch::now();
        assert!(!w.died());
        assert!(ParentWatch(-1).died());
    }
}
