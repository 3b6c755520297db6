//! Containment: every path the store reads or removes resolves inside its folder.
//!
//! A file's name comes from the manifest (which a shared folder, a restored backup or a hand
//! edit can make say anything) or is built from the server's identifiers. Before a path is
//! read or removed it must be a relative path of plain components (no `..`, no root, no `.`)
//! and, once the folders on its way are resolved (symbolic links included), still lie inside
//! the store's own resolved folder. A name that is not is a problem naming it; nothing
//! outside is ever read or removed.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The store's folder, resolved once, and the folders already found inside it.
pub(crate) struct Root {
    root: PathBuf,
    /// The folder with its symbolic links resolved (none while it does not exist).
    resolved: Option<PathBuf>,
    inside: BTreeSet<PathBuf>,
}

impl Root {
    pub(crate) fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            resolved: root.canonicalize().ok(),
            inside: BTreeSet::new(),
        }
    }

    /// The path of `name` under the store, when it resolves inside it; else why not.
    ///
    /// A name whose folders do not exist resolves inside (nothing is there to read or
    /// remove); a file that is itself a symbolic link must point inside too.
    pub(crate) fn resolve(&mut self, name: &str) -> Result<PathBuf, String> {
        let rel = Path::new(name);
        let plain = !name.is_empty() && rel.components().all(|c| matches!(c, Component::Normal(_)));
        if !plain {
            return Err("is not a path inside the store (the manifest names it so)".into());
        }
        let path = self.root.join(rel);
        let Some(resolved_root) = &self.resolved else {
            return Ok(path);
        };
        if let Some(dir) = path.parent() {
            if !self.inside.contains(dir) {
                match dir.canonicalize() {
                    Ok(real) if real.starts_with(resolved_root) => {
                        self.inside.insert(dir.to_path_buf());
                    }
                    Ok(real) => {
                        return Err(format!(
                            "resolves outside the store, to {} (through a symbolic link)",
                            real.display()
                        ))
                    }
                    Err(_) => return Ok(path),
                }
            }
        }
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link {
            match path.canonicalize() {
                Ok(real) if real.starts_with(resolved_root) => {}
                Ok(real) => {
                    return Err(format!(
                        "resolves outside the store, to {} (a symbolic link)",
                        real.display()
                    ))
                }
                Err(_) => return Err("is a symbolic link to nothing".into()),
            }
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        std::fs::create_dir_all(root.join("kind=disk")).unwrap();
        let mut r = Root::new(&root);
        assert_eq!(
            r.resolve("kind=disk/f.parquet").unwrap(),
            root.join("kind=disk/f.parquet")
        );
        for bad in [
            "../victim.txt",
            "kind=disk/../../victim.txt",
            "/etc/passwd",
            "./f.parquet",
            "",
        ] {
            let e = r.resolve(bad).unwrap_err();
            assert!(e.contains("not a path inside"), "{bad}: {e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_out_of_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        let outside = dir.path().join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim.parquet"), b"x").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("kind=disk")).unwrap();
        std::os::unix::fs::symlink(outside.join("victim.parquet"), root.join("linked.parquet"))
            .unwrap();
        std::fs::create_dir_all(root.join("kind=host")).unwrap();
        std::os::unix::fs::symlink(
            root.join("linked.parquet"),
            root.join("kind=host/in.parquet"),
        )
        .unwrap();
        let mut r = Root::new(&root);
        let e = r.resolve("kind=disk/victim.parquet").unwrap_err();
        assert!(e.contains("outside the store"), "{e}");
        let e = r.resolve("linked.parquet").unwrap_err();
        assert!(e.contains("outside the store"), "{e}");
        // A link to a link that leaves: refused too.
        assert!(r.resolve("kind=host/in.parquet").is_err());
        // A store reached through a link of its own is fine.
        let alias = dir.path().join("alias");
        std::os::unix::fs::symlink(&root, &alias).unwrap();
        std::fs::write(root.join("kind=host/f.parquet"), b"x").unwrap();
        assert!(Root::new(&alias).resolve("kind=host/f.parquet").is_ok());
    }
}
