//! The guard's end of the exec filter: the seccomp notification listener (a file descriptor the
//! guarded process made with its filter and passed to the guard before its exec). Each exec of
//! the tree waits in the kernel until the guard answers its notification: go on with the call as
//! it stands, or fail it with an error number.

use std::os::fd::{AsFd, AsRawFd as _, BorrowedFd, OwnedFd};

use nix::errno::Errno;
use nix::unistd::Pid;

/// An exec waiting for the guard.
#[derive(Debug)]
pub(crate) struct Notification {
    /// The notification's id, for the answer.
    pub(crate) id: u64,
    /// The thread that execs.
    pub(crate) pid: Pid,
    /// The system call's number.
    pub(crate) nr: i32,
    /// Its arguments.
    pub(crate) args: [u64; 6],
}

/// The listener.
#[derive(Debug)]
pub(crate) struct Listener {
    fd: OwnedFd,
}

impl AsFd for Listener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Listener {
    pub(crate) fn new(fd: OwnedFd) -> Listener {
        Listener { fd }
    }

    /// The next waiting exec (`EINTR`, or `ENOENT` when it went away before it was read, mean
    /// trying again).
    pub(crate) fn receive(&self) -> Result<Notification, Errno> {
        // SAFETY: an all-zero `seccomp_notif` is what the kernel asks to be given.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: the kernel writes at most a `seccomp_notif` into `req`.
        let rc = unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) };
        Errno::result(rc)?;
        Ok(Notification { id: req.id, pid: Pid::from_raw(req.pid as i32), nr: req.data.nr, args: req.data.args })
    }

    /// Whether the exec `id` still waits (its thread has not died, its pid not been reused).
    pub(crate) fn waits(&self, id: u64) -> bool {
        // SAFETY: the kernel reads a `u64` from the pointer.
        unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 }
    }

    /// Lets the exec `id` go on as its caller made it.
    pub(crate) fn go_on(&self, id: u64) -> Result<(), Errno> {
        self.answer(id, 0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32)
    }

    /// Fails the exec `id` with `errno`.
    pub(crate) fn fail(&self, id: u64, errno: Errno) -> Result<(), Errno> {
        self.answer(id, -(errno as i32), 0)
    }

    fn answer(&self, id: u64, error: i32, flags: u32) -> Result<(), Errno> {
        let mut resp = libc::seccomp_notif_resp { id, val: 0, error, flags };
        // SAFETY: the kernel reads a `seccomp_notif_resp` from the pointer.
        let rc = unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
        Errno::result(rc).map(drop)
    }
}
