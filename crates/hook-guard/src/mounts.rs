//! The command's own mount namespace, made in its process before the filter and the exec (so in
//! the guard's memory: system calls on what the parent prepared, nothing else; see `spawn`). The
//! process is cloned into a user namespace of its own that maps the person's uid and gid to
//! themselves (`setgroups` denied) and a mount namespace owned by it; there the paths of the Read
//! deny rules are hidden — a directory under an empty read-only tmpfs of mode 0, a file under a
//! bind of an empty file of mode 0 on a read-only tmpfs — and the paths of the Edit deny rules are
//! bound read-only onto themselves (recursively). A mount point cannot be renamed or removed
//! (`EBUSY`), and the filter refuses every call that could change the mounts, so the command
//! cannot undo any of it.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt as _;

use crate::files::{Mount, View};

/// A mount as the child makes it.
pub(crate) struct Planned {
    path: CString,
    view: View,
    dir: bool,
}

impl Planned {
    /// `None` for a path with a NUL byte (none can have one).
    pub(crate) fn new(mount: &Mount) -> Option<Planned> {
        let path = CString::new(mount.path.as_os_str().as_bytes()).ok()?;
        Some(Planned { path, view: mount.view, dir: mount.dir })
    }
}

/// The uid and gid maps of the person's own ids, written by the child into its namespace.
pub(crate) struct IdMaps {
    uid: Vec<u8>,
    gid: Vec<u8>,
}

impl IdMaps {
    /// The guard's effective ids, each mapped to itself.
    pub(crate) fn own() -> IdMaps {
        let (uid, gid) = (rustix::process::geteuid().as_raw(), rustix::process::getegid().as_raw());
        IdMaps { uid: format!("{uid} {uid} 1\n").into_bytes(), gid: format!("{gid} {gid} 1\n").into_bytes() }
    }
}

/// Where the empty file's tmpfs is mounted for a moment, to be cloned from.
const SCRATCH: &std::ffi::CStr = c"/tmp";
/// How many clones of the empty file are made before they are placed.
const BATCH: usize = 64;
/// `mount_setattr`'s `struct mount_attr`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

/// In the child, first: its uid and gid maps. `Err`: what failed.
pub(crate) fn enter(ids: &IdMaps) -> Result<(), &'static [u8]> {
    // Absent before Linux 3.19, where an unprivileged gid map needs no such denial.
    let _ = write(c"/proc/self/setgroups", b"deny\n");
    if !write(c"/proc/self/uid_map", &ids.uid) || !write(c"/proc/self/gid_map", &ids.gid) {
        return Err(b"the kernel refuses the command's user namespace its own uid and gid");
    }
    Ok(())
}

/// In the child, after [`enter`]: the mounts of `plan`, in order. `Err`: what failed.
pub(crate) fn apply(plan: &[Planned]) -> Result<(), &'static [u8]> {
    // SAFETY: mount(2) on NUL-terminated strings and null pointers it accepts.
    if unsafe {
        libc::mount(std::ptr::null(), c"/".as_ptr(), std::ptr::null(), libc::MS_REC | libc::MS_SLAVE, std::ptr::null())
    } != 0
    {
        return Err(b"cannot give the command a mount namespace of its own");
    }
    let files: &mut [libc::c_int; BATCH] = &mut [-1; BATCH];
    let mut pending = 0;
    for (at, mount) in plan.iter().enumerate() {
        let made = match (mount.view, mount.dir) {
            (View::ReadOnly, _) => read_only(mount),
            (View::Hidden, true) => hide_dir(mount),
            (View::Hidden, false) => {
                pending += 1;
                // A batch of clones is made when it is full or at the last file.
                let last = plan[at + 1..].iter().all(|m| m.view != View::Hidden || m.dir);
                if pending == BATCH || last {
                    let batch = plan[..=at].iter().filter(|m| m.view == View::Hidden && !m.dir).rev().take(pending);
                    let done = hide_files(files, pending, batch);
                    pending = 0;
                    done
                } else {
                    true
                }
            }
        };
        if !made {
            return Err(b"cannot hide or protect a path a deny rule names");
        }
    }
    Ok(())
}

/// `mount`'s path, bound onto itself read-only, with everything below it.
fn read_only(mount: &Planned) -> bool {
    let path = mount.path.as_ptr();
    let attr = MountAttr { attr_set: MOUNT_ATTR_RDONLY, attr_clr: 0, propagation: 0, userns_fd: 0 };
    // SAFETY: mount(2) and mount_setattr(2) on NUL-terminated strings and a `mount_attr` of the
    // size given.
    unsafe {
        libc::mount(path, path, std::ptr::null(), libc::MS_BIND | libc::MS_REC, std::ptr::null()) == 0
            && libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                path,
                libc::AT_RECURSIVE,
                &attr,
                std::mem::size_of::<MountAttr>(),
            ) == 0
    }
}

/// An empty read-only tmpfs of mode 0 over `mount`'s directory.
fn hide_dir(mount: &Planned) -> bool {
    let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    // SAFETY: mount(2) on NUL-terminated strings.
    unsafe {
        libc::mount(c"tmpfs".as_ptr(), mount.path.as_ptr(), c"tmpfs".as_ptr(), flags, c"mode=0".as_ptr().cast()) == 0
    }
}

/// Hides the `count` files of `batch` (at most [`BATCH`]) under clones of one empty file of mode
/// 0 on a read-only tmpfs: mounted at [`SCRATCH`] for as long as the clones take.
fn hide_files<'p>(fds: &mut [libc::c_int; BATCH], count: usize, batch: impl Iterator<Item = &'p Planned>) -> bool {
    let scratch = SCRATCH.as_ptr();
    let file = c"/tmp/empty".as_ptr();
    let quiet = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    // SAFETY: mount(2), open(2), close(2), open_tree(2), umount2(2) on NUL-terminated strings and
    // descriptors of the child's own.
    let cloned = unsafe {
        if libc::mount(c"tmpfs".as_ptr(), scratch, c"tmpfs".as_ptr(), quiet, c"mode=0700".as_ptr().cast()) != 0 {
            return false;
        }
        let fd = libc::open(file, libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC, 0);
        let mut ok = fd >= 0
            && libc::close(fd) == 0
            && libc::mount(
                std::ptr::null(),
                scratch,
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | quiet,
                std::ptr::null(),
            ) == 0;
        for slot in fds.iter_mut().take(count) {
            *slot = match ok {
                true => libc::syscall(
                    libc::SYS_open_tree,
                    libc::AT_FDCWD,
                    file,
                    OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
                ) as libc::c_int,
                false => -1,
            };
            ok &= *slot >= 0;
        }
        libc::umount2(scratch, libc::MNT_DETACH) == 0 && ok
    };
    let mut placed = cloned;
    for (fd, mount) in fds.iter_mut().take(count).zip(batch) {
        // SAFETY: move_mount(2) of a clone onto a NUL-terminated path; close(2) of the clone.
        unsafe {
            placed = placed
                && libc::syscall(
                    libc::SYS_move_mount,
                    *fd,
                    c"".as_ptr(),
                    libc::AT_FDCWD,
                    mount.path.as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH,
                ) == 0;
            if *fd >= 0 {
                libc::close(*fd);
            }
        }
        *fd = -1;
    }
    placed
}

/// Writes `bytes` to the file at `path` in one call.
fn write(path: &std::ffi::CStr, bytes: &[u8]) -> bool {
    // SAFETY: open(2), write(2), close(2) on a NUL-terminated path and a buffer of the length given.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        written == bytes.len() as isize
    }
}
