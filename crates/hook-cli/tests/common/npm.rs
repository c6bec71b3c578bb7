//! Pinned npm packages of the agent clients the real-client suites drive, installed with npm into
//! `<target>/npm-cache/<slug>-<version>` on first use. A lock file keeps parallel tests and
//! parallel `cargo test` processes from installing at the same time; a completion marker, written
//! last (after the package's own first-run step, if it has one), says the install finished.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One pinned npm package and the executable it provides.
#[derive(Debug)]
pub(crate) struct NpmPackage {
    /// The directory name under `npm-cache` (without the version).
    pub(crate) slug: &'static str,
    /// The npm package name.
    pub(crate) package: &'static str,
    /// The one version the suite drives.
    pub(crate) version: &'static str,
    /// The executable under `node_modules/.bin`.
    pub(crate) bin: &'static str,
    /// How large the install is, for the first-use message.
    pub(crate) size: &'static str,
}

impl NpmPackage {
    /// `<target>/npm-cache/<slug>-<version>`: the target directory is the one holding the binary
    /// under test (`<target>/<profile>/aimon-hooks`), so `CARGO_TARGET_DIR` is honoured.
    pub(crate) fn dir(&self) -> PathBuf {
        let binary = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        let target = binary.parent().and_then(Path::parent).expect("the binary lives in <target>/<profile>/");
        target.join("npm-cache").join(format!("{}-{}", self.slug, self.version))
    }

    /// The package's executable, installing it first if needed; `first_run` runs once after the
    /// install, under the lock, before the completion marker (a client that unpacks itself on its
    /// first start does it there). Panics with a sentence naming what to install when npm is
    /// missing or the install fails.
    pub(crate) fn install(&self, first_run: impl FnOnce(&Path)) -> PathBuf {
        let dir = self.dir();
        let bin = dir.join("node_modules").join(".bin").join(self.bin);
        let marker = dir.join(".installed");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let lock_path = dir.with_file_name(format!("{}-{}.lock", self.slug, self.version));
        let lock = File::create(&lock_path).unwrap_or_else(|e| panic!("cannot create {}: {e}", lock_path.display()));
        lock.lock().unwrap_or_else(|e| panic!("cannot lock {}: {e}", lock_path.display()));
        if !marker.exists() {
            self.npm_install(&dir);
            let installed = self.installed_version(&dir);
            assert!(
                installed == self.version,
                "npm installed {}@{installed} into {}, not {}",
                self.package,
                dir.display(),
                self.version
            );
            assert!(bin.exists(), "npm installed {} but {} is missing", self.package, bin.display());
            first_run(&bin);
            std::fs::write(&marker, self.version).expect("write the completion marker");
        }
        drop(lock);
        bin
    }

    fn npm_install(&self, dir: &Path) {
        let package = format!("{}@{}", self.package, self.version);
        eprintln!("installing {package} into {} (first use, {})", dir.display(), self.size);
        let out = Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(dir)
            .args(["--no-audit", "--no-fund", "--loglevel=error", &package])
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run npm ({e}): the real-client tests install {package} with npm; install \
                     Node.js and npm (e.g. `apt-get install nodejs npm`) and run them again"
                )
            });
        assert!(
            out.status.success(),
            "`npm install --prefix {} {package}` failed ({}); Node.js and npm must be installed and the \
             npm registry reachable.\nstdout:\n{}\nstderr:\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The `version` of the installed package's own `package.json`.
    fn installed_version(&self, dir: &Path) -> String {
        let manifest = dir.join("node_modules").join(self.package).join("package.json");
        let text = std::fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("npm finished but {} is unreadable: {e}", manifest.display()));
        let json: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("npm finished but {} is not JSON: {e}", manifest.display()));
        json["version"].as_str().unwrap_or_default().to_owned()
    }
}
