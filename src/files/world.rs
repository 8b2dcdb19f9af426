//! A program's world: the files it could read when it started — its working folder and
//! the paths its command names — copied as they were then, so that an export replays the
//! session against what the session's program found, not against what it (or anything
//! else) left behind: a file vim saved, a swap file, a folder tig reads as a repository.
//!
//! The copy is a mirror, in a private temporary folder, of the folder the copied paths
//! share (the working folder itself when the command names nothing outside it:
//! `ROOT/notes.txt` for `/home/me/project/notes.txt`; `ROOT/project/notes.txt` and
//! `ROOT/shared/a.txt` when it also names `/home/me/shared/a.txt`), so a path relative to
//! the working folder — `../shared/a.txt` included — means the same inside the copy as
//! outside it, an absolute path the command named is replayed as the relative one that
//! reaches the copy ([`WorldMap::replayed_word`]), and the replay's folder is short.
//!
//! It is bounded ([`WorldLimits`]): the folder is listed first (names and sizes, nothing
//! read) and refused whole past the limit, never copied in part. What is not a plain file
//! or folder — a symbolic link (in or out of the world), a socket, a FIFO, a device — and
//! what cannot be read is left out and listed by name ([`World::left_out`]), so an export
//! can say what it does not carry. Nothing is followed: links are not copied through, a
//! FIFO is never opened.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use super::{Folder, KernelCopy, TempDir};
use crate::error::{Error, Result};

/// How much of a world is copied at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldLimits {
    /// Bytes of file contents, in all.
    pub bytes: u64,
    /// Files and folders, in all.
    pub entries: usize,
}

impl Default for WorldLimits {
    /// 64 MiB in at most 20,000 files and folders: a project's sources, not its build
    /// output or a home folder.
    fn default() -> WorldLimits {
        WorldLimits {
            bytes: 64 << 20,
            entries: 20_000,
        }
    }
}

/// The copy of what a program found at its start.
#[derive(Debug)]
pub struct World {
    /// The mirror's root: a path `BASE/P` is copied at `ROOT/P`.
    /// (Taken by a session, which removes it when it ends: [`World::take_store`].)
    store: Option<TempDir>,
    /// The copy's folder (the store's path, kept once the store is taken).
    root: PathBuf,
    /// The folder the copied paths have in common (the working folder, when nothing
    /// outside it is named): the mirror holds what is under it.
    base: PathBuf,
    /// The program's working folder (absolute).
    cwd: PathBuf,
    /// The paths copied (absolute): the working folder, then each named path outside it.
    roots: Vec<PathBuf>,
    /// What was left out, each with why.
    left_out: Vec<(PathBuf, String)>,
    /// The program's `HOME`, when it had one ([`World::seen_from`]).
    home: Option<PathBuf>,
    /// Bytes and files copied.
    bytes: u64,
    files: usize,
}

/// Why a world was not copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorldRefused {
    /// Past the limit: the path whose listing went past it, and the limit.
    TooLarge {
        /// The working folder or named path being listed when the limit was passed.
        path: PathBuf,
        /// What the limit was.
        limits: WorldLimits,
    },
    /// The copy failed (the temporary folder could not be written): why.
    Failed(String),
}

impl std::fmt::Display for WorldRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorldRefused::TooLarge { path, limits } => write!(
                f,
                "{} holds more than {} or {} files and folders",
                path.display(),
                size(limits.bytes),
                limits.entries
            ),
            WorldRefused::Failed(why) => write!(f, "it could not be copied: {why}"),
        }
    }
}

/// Where a world of `bytes` is copied: the temporary folder the user named (`TMPDIR`);
/// without one, `/dev/shm` when it is a memory file system with room to spare (four times
/// the world and 64 MiB more); else the system's temporary folder.
///
/// Why memory first: a world is made at every start and removed at every end, and on ext4
/// a folder where many files were made and removed a moment ago makes the next ones
/// slowly — its inode allocator passes over every recently freed inode
/// (`recently_deleted`). Measured on this project's own `cli/` folder (84 files), after a
/// few hundred starts: 9 ms a copy in `/tmp` on ext4 against 2.4 ms in `/dev/shm`, and
/// 2 ms against 0.75 ms to remove it. A world is bounded ([`WorldLimits`], 64 MiB by
/// default) and lives as long as its session.
fn store_base(bytes: u64) -> PathBuf {
    let system = std::env::temp_dir();
    if std::env::var_os("TMPDIR").is_some() {
        return system;
    }
    let memory = Path::new("/dev/shm");
    // SAFETY: `statfs` is plain data, filled by the call before it is read.
    let mut about: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a live out-pointer.
    if unsafe { libc::statfs(c"/dev/shm".as_ptr(), &mut about) } != 0 {
        return system;
    }
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    let free = (about.f_bavail as u64).saturating_mul(about.f_bsize as u64);
    match about.f_type as i64 == TMPFS_MAGIC && free >= bytes.saturating_mul(4).saturating_add(64 << 20) {
        true => memory.to_path_buf(),
        false => system,
    }
}

/// One entry found while listing, to be copied.
enum Found {
    /// A folder, with what its listing said of it (its mode and times, which its copy
    /// takes once its entries are in).
    Folder(PathBuf, Box<std::fs::Metadata>),
    File(PathBuf, u64),
}

impl World {
    /// Copies the working folder `cwd` (absolute) and every path `command` names that
    /// exists outside it (its words after the program: absolute, or relative to `cwd`),
    /// within `limits`.
    pub fn capture(
        cwd: &Path,
        command: &[OsString],
        limits: WorldLimits,
    ) -> std::result::Result<World, WorldRefused> {
        Self::capture_copying_empty(cwd, command, limits, &[])
    }

    /// [`capture`](Self::capture), copying each folder of `empty` as an empty folder (what
    /// is under it left out), named in the summary with the reason given.
    pub fn capture_copying_empty(
        cwd: &Path,
        command: &[OsString],
        limits: WorldLimits,
        empty: &[(PathBuf, String)],
    ) -> std::result::Result<World, WorldRefused> {
        let cwd = lexical(cwd);
        let empty: Vec<(PathBuf, &String)> = empty
            .iter()
            .map(|(path, why)| (lexical(&cwd.join(path)), why))
            .collect();
        let mut roots = vec![cwd.clone()];
        for word in command.iter().skip(1) {
            if word.is_empty() || word.as_bytes().starts_with(b"-") || word.as_bytes().contains(&0) {
                continue;
            }
            let path = lexical(&cwd.join(word));
            if roots.iter().any(|root| path.starts_with(root)) {
                continue;
            }
            if std::fs::symlink_metadata(&path).is_ok() {
                roots.retain(|root| !root.starts_with(&path));
                roots.push(path);
            }
        }
        // Listed whole first: refused past the limit before anything is copied.
        let mut found = Vec::new();
        let mut left_out = Vec::new();
        let (mut bytes, mut entries) = (0u64, 0usize);
        for root in &roots {
            // Each entry with what its folder's listing said of it (read relative to the
            // open folder, not through its whole path); the root by its path.
            let mut todo = vec![(root.clone(), std::fs::symlink_metadata(root))];
            while let Some((path, meta)) = todo.pop() {
                let Ok(meta) = meta else {
                    left_out.push((path, "it could not be read".to_string()));
                    continue;
                };
                entries += 1;
                let kind = meta.file_type();
                let copied_empty = match meta.is_dir() {
                    true => empty
                        .iter()
                        .find(|(folder, _)| *folder == path)
                        .map(|(_, why)| why.to_string())
                        .or_else(|| export_world(&path)),
                    false => None,
                };
                if let Some(why) = copied_empty {
                    found.push(Found::Folder(path.clone(), Box::new(meta)));
                    left_out.push((path, format!("{why}, copied empty")));
                } else if meta.is_dir() {
                    match std::fs::read_dir(&path) {
                        Ok(listing) => {
                            found.push(Found::Folder(path.clone(), Box::new(meta.clone())));
                            let mut entries: Vec<_> =
                                listing.flatten().map(|e| (e.path(), e.metadata())).collect();
                            entries.sort_by(|a, b| a.0.cmp(&b.0));
                            todo.extend(entries.into_iter().rev());
                        }
                        Err(e) => left_out.push((path, format!("a folder that cannot be listed ({e})"))),
                    }
                } else if meta.is_file() {
                    bytes += meta.len();
                    found.push(Found::File(path, meta.len()));
                } else {
                    use std::os::unix::fs::FileTypeExt;
                    let what = if kind.is_symlink() {
                        "a symbolic link"
                    } else if kind.is_socket() {
                        "a socket"
                    } else if kind.is_fifo() {
                        "a FIFO"
                    } else {
                        "a device"
                    };
                    left_out.push((path, what.to_string()));
                }
                if bytes > limits.bytes || entries > limits.entries {
                    return Err(WorldRefused::TooLarge {
                        path: root.clone(),
                        limits,
                    });
                }
            }
        }
        let store =
            TempDir::new_in(&store_base(bytes), "world").map_err(|e| WorldRefused::Failed(e.to_string()))?;
        // Short paths in the replay: under the folder the roots share, not under `/`.
        let mut shared_by_all = roots.iter();
        let first = shared_by_all.next().cloned().unwrap_or_else(|| cwd.clone());
        let shared: PathBuf = shared_by_all.fold(first, |base, root| {
            base.components()
                .zip(root.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect()
        });
        // A copied folder keeps its own name in the mirror (`NAME.world/project`, not
        // `NAME.world`): a prompt's `\W`, an editor's title or a repository tool shows the
        // folder's name, and the replay's must be the same.
        let base = match roots.contains(&shared) {
            true => shared.parent().map_or_else(|| shared.clone(), Path::to_path_buf),
            false => shared,
        };
        let root = store.path().to_path_buf();
        let mut world = World {
            store: Some(store),
            root,
            base,
            cwd,
            roots,
            left_out,
            home: None,
            bytes: 0,
            files: 0,
        };
        // The mirror's folders, each opened once: its files are written through its
        // descriptor, in place (the store is this process's own private folder).
        let mut folders: std::collections::HashMap<PathBuf, Folder> = std::collections::HashMap::new();
        let kernel = KernelCopy::default();
        let mut folder_for = |copy: &Path| -> std::result::Result<Folder, WorldRefused> {
            if let Some(folder) = folders.get(copy) {
                return Ok(folder.clone());
            }
            let failed = |e: String| WorldRefused::Failed(format!("cannot create {}: {e}", copy.display()));
            std::fs::create_dir_all(copy).map_err(|e| failed(e.to_string()))?;
            let folder = Folder::open(copy).map_err(|e| failed(e.to_string()))?;
            folders.insert(copy.to_path_buf(), folder.clone());
            Ok(folder)
        };
        let mut folders_found = Vec::new();
        for entry in found {
            match entry {
                Found::Folder(path, meta) => {
                    if let Some(copy) = world.stored(&path) {
                        folders_found.push((folder_for(&copy)?, meta));
                    }
                }
                Found::File(path, len) => {
                    let Some(copy) = world.stored(&path) else {
                        continue;
                    };
                    let (Some(parent), Some(name)) = (copy.parent(), copy.file_name()) else {
                        continue;
                    };
                    // Opened without following what may have been put in its place
                    // since the listing, and refused if it is no longer a plain file.
                    match folder_for(parent)?.copy_in(&path, name, &kernel) {
                        Ok(_) => {
                            world.bytes += len;
                            world.files += 1;
                        }
                        Err(e) => world
                            .left_out
                            .push((path, format!("it could not be copied ({e})"))),
                    }
                }
            }
        }
        // Each folder's mode and times, once its entries are in: deepest first (making a
        // folder's entry changes its times), the mirror's root last with the times of the
        // folder it stands for (a listing's `..`; it stays private).
        let kept = |copy: &Folder, e: std::io::Error| {
            WorldRefused::Failed(format!("cannot keep the times of {}: {e}", copy.path().display()))
        };
        for (copy, meta) in folders_found.iter().rev() {
            super::copy::keep_metadata(&*copy.fd, meta).map_err(|e| kept(copy, e))?;
        }
        if let (Ok(meta), Ok(root)) = (std::fs::metadata(&world.base), Folder::open(&world.root)) {
            super::copy::keep_times(&*root.fd, &meta).map_err(|e| kept(&root, e))?;
        }
        world.left_out.sort();
        Ok(world)
    }

    /// Where absolute path `path` is copied.
    /// Where `path` (under the base, as every copied path is) is copied; `None` for a path
    /// outside it, which is never written anywhere.
    fn stored(&self, path: &Path) -> Option<PathBuf> {
        let relative = path.strip_prefix(&self.base).ok()?;
        Some(self.root.join(relative))
    }

    /// The world as a program whose `HOME` was `home` saw it: a program shows a path under
    /// it from `~` (a prompt's `~/project`), which an export masks as it masks the path.
    pub fn seen_from(mut self, home: Option<PathBuf>) -> World {
        self.home = home.filter(|home| home.is_absolute()).map(|home| lexical(&home));
        self
    }

    /// The temporary folder the copy is in, handed to its owner: a session keeps it with
    /// its other temporaries and removes it when it ends (a host ending with its session
    /// runs no destructor). Left with the world, it goes when the world is dropped.
    pub(crate) fn take_store(&mut self) -> Option<TempDir> {
        self.store.take()
    }

    /// The mirror's root: a copy of path `BASE/P` is at `root()/P`, `BASE` the folder the
    /// copied paths share (the working folder, when the command named nothing outside it).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The program's working folder, as the session had it (absolute).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The paths copied (absolute): the working folder, then each named path outside it.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// What was left out, each with why (`a symbolic link`, `a socket`).
    pub fn left_out(&self) -> &[(PathBuf, String)] {
        &self.left_out
    }

    /// Bytes of file contents copied.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Files copied.
    pub fn files(&self) -> usize {
        self.files
    }

    /// One line of what the world holds: `12 files, 3.4 MB from /home/me/project; left
    /// out: /home/me/project/s.sock (a socket)`.
    pub fn summary(&self) -> String {
        let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        let mut line = format!(
            "{} file{}, {} from {}",
            self.files,
            if self.files == 1 { "" } else { "s" },
            size(self.bytes),
            roots.join(", ")
        );
        if !self.left_out.is_empty() {
            let shown: Vec<String> = self
                .left_out
                .iter()
                .take(5)
                .map(|(path, why)| format!("{} ({why})", path.display()))
                .collect();
            line.push_str(&format!("; left out: {}", shown.join(", ")));
            if self.left_out.len() > 5 {
                line.push_str(&format!(" and {} more", self.left_out.len() - 5));
            }
        }
        line
    }

    /// What an export needs to know of the world: where it was, what it holds.
    pub fn map(&self) -> WorldMap {
        WorldMap {
            base: self.base.clone(),
            cwd: self.cwd.clone(),
            roots: self.roots.clone(),
            home: self.home.clone(),
            summary: self.summary(),
        }
    }

    /// Copies the mirror to `to`, a folder that must not exist yet (an export's
    /// `NAME.world`, written beside the tape).
    pub fn write_to(&self, to: &Path) -> Result<()> {
        super::copy_tree(self.root(), to)
    }
}

/// Why `folder` is an export's world — `NAME.world` beside `NAME.tape`, as `export` and
/// `record` write them — which a world copies empty: copied whole, each export made in
/// a folder would carry the last one's world inside its own.
fn export_world(folder: &Path) -> Option<String> {
    let name = folder.file_name()?.to_str()?.strip_suffix(".world")?;
    let tape = folder.with_file_name(format!("{name}.tape"));
    tape.is_file()
        .then(|| format!("the world of the export {}", tape.display()))
}

/// Where a world was and what it holds, without its files: what an export writes into
/// the tape (the folder to start in, the command's paths made relative to it, a comment).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WorldMap {
    /// The folder the copied paths share: the mirror's root stands for it.
    pub base: PathBuf,
    /// The program's working folder, as the session had it (absolute).
    pub cwd: PathBuf,
    /// The paths copied (absolute).
    pub roots: Vec<PathBuf>,
    /// The program's `HOME` ([`World::seen_from`]); `None` from an older host.
    #[serde(default)]
    pub home: Option<PathBuf>,
    /// [`World::summary`].
    pub summary: String,
}

impl WorldMap {
    /// The working folder as the program may show it: its absolute path, and from `~`
    /// when it is under the program's `HOME` (`~/project`; `~` for `HOME` itself).
    pub fn cwd_spellings(&self) -> Vec<String> {
        let mut spellings = vec![self.cwd.to_string_lossy().into_owned()];
        if let Some(inside) = self
            .home
            .as_ref()
            .and_then(|home| self.cwd.strip_prefix(home).ok())
        {
            spellings.push(match inside.as_os_str().is_empty() {
                true => "~".to_string(),
                false => format!("~/{}", inside.to_string_lossy()),
            });
        }
        spellings
    }

    /// The working folder inside a mirror of the world at `root` (`root` itself, or
    /// `root/project` when the mirror holds folders beside it).
    pub fn cwd_under(&self, root: &Path) -> PathBuf {
        match self.cwd.strip_prefix(&self.base) {
            Ok(inside) if !inside.as_os_str().is_empty() => root.join(inside),
            _ => root.to_path_buf(),
        }
    }

    /// `word` of the command as a replay inside the copy takes it: an absolute path inside
    /// the world becomes the relative path from the working folder that reaches the same
    /// file in the copy (`/home/me/project/notes.txt` → `./notes.txt`, `/etc/motd` →
    /// `../../../etc/motd`); any other word is unchanged.
    pub fn replayed_word(&self, word: &OsStr) -> OsString {
        let path = Path::new(word);
        if !path.is_absolute() {
            return word.to_os_string();
        }
        let path = lexical(path);
        if !self.roots.iter().any(|root| path.starts_with(root)) {
            return word.to_os_string();
        }
        let common = self
            .cwd
            .components()
            .zip(path.components())
            .take_while(|(a, b)| a == b)
            .count();
        let mut relative = PathBuf::new();
        for _ in common..self.cwd.components().count() {
            relative.push("..");
        }
        for part in path.components().skip(common) {
            relative.push(part);
        }
        // `./` first where it names no folder: a program's word without a slash would be
        // looked up on PATH.
        if !relative.starts_with("..") {
            relative = Path::new(".").join(relative);
        }
        relative.into_os_string()
    }
}

/// The folder `name` beside the source file `file` (a test's `file!()`) of the crate at
/// `manifest_dir` (its `env!("CARGO_MANIFEST_DIR")`): where an exported Rust test finds the
/// world written beside it. `file!()` is absolute, or relative to the workspace's root —
/// the crate's folder or one above it — so each folder from the crate's up is tried, and
/// the first that holds `name` beside the file wins (the crate's own when none does).
pub fn beside_source(file: &str, manifest_dir: &str, name: &str) -> PathBuf {
    let file = Path::new(file);
    let beside = |base: &Path| base.join(file).parent().map(|folder| folder.join(name));
    Path::new(manifest_dir)
        .ancestors()
        .filter_map(beside)
        .find(|candidate| candidate.is_dir())
        .or_else(|| beside(Path::new(manifest_dir)))
        .unwrap_or_else(|| PathBuf::from(name))
}

/// `path` with `.` and `..` resolved by its words alone (no link is followed).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A size in words: `512 bytes`, `3.4 MiB`.
fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        n if n < 1 << 10 => format!("{n} bytes"),
        n if n < 1 << 20 => format!("{:.1} KiB", b / 1024.0),
        n if n < 1 << 30 => format!("{:.1} MiB", b / 1048576.0),
        _ => format!("{:.1} GiB", b / 1073741824.0),
    }
}

/// A refused world as the error an export gives: why (a [`WorldRefused`] as text), and
/// what to do.
pub fn refused_error(why: &dyn std::fmt::Display) -> Error {
    Error::InvalidArgument {
        message: format!(
            "the session's world is not carried: {why}; export --without-world to replay without it, --with PATH to carry chosen files instead, or --in-place to replay in the folder itself"
        ),
    }
}
