//! `SandboxInit`: a pidfd on a running sandbox's init process, so a kill is one syscall
//! (no Docker API round trip) and its end is seen the moment the kernel reaps it. When a
//! pid namespace's init dies the kernel kills and reaps every other process in it first,
//! so "init exited" means "nothing of the program runs any more". Used by `interpreter`.
//!
//! Only usable where the supervisor shares the Docker engine's pid namespace (the usual
//! case); anywhere else `find` returns `None` and the Docker API does the kill.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use bollard::query_parameters::InspectContainerOptions;
use bollard::Docker;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

pub struct SandboxInit {
    pidfd: AsyncFd<OwnedFd>,
}

impl SandboxInit {
    /// Opens the init of `container_id` if it runs in a pid this process can see and is
    /// proven to belong to that container (its cgroup names the container id).
    pub async fn find(docker: &Docker, container_id: &str) -> Option<SandboxInit> {
        let inspected = docker
            .inspect_container(container_id, None::<InspectContainerOptions>)
            .await
            .ok()?;
        let pid = inspected.state?.pid.filter(|pid| *pid > 0)?;
        let pid = i32::try_from(pid).ok()?;
        match Self::open_verified(pid, container_id) {
            Ok(found) => found,
            Err(e) => {
                tracing::debug!(container = container_id, "no pidfd on sandbox init: {e}");
                None
            }
        }
    }

    /// Opens a pidfd on `pid`, then checks that pid still names the sandbox's process:
    /// its cgroup must mention the container id, and the pidfd must still be alive after
    /// that check (so the number was not reused by another process in between).
    fn open_verified(pid: i32, container_id: &str) -> io::Result<Option<SandboxInit>> {
        let pidfd = pidfd_open(pid)?;
        let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup"))?;
        if !cgroups.contains(container_id) {
            return Ok(None);
        }
        send_signal(&pidfd, 0)?;
        // SAFETY: `pidfd` is an open descriptor owned by the `AsyncFd` from here on, so it
        // stays open and the same for the AsyncFd's whole life.
        let registered = unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) };
        let pidfd = registered.map_err(|e| e.into_parts().1)?;
        Ok(Some(SandboxInit { pidfd }))
    }

    /// SIGKILLs the init, which takes every process of the sandbox down with it.
    pub fn kill(&self) -> io::Result<()> {
        send_signal(self.pidfd.get_ref(), libc::SIGKILL)
    }

    /// SIGINTs the init, which passes it on to the program it started (Docker's init does):
    /// an interpreter runner turns it into KeyboardInterrupt in the running cell.
    pub fn interrupt(&self) -> io::Result<()> {
        send_signal(self.pidfd.get_ref(), libc::SIGINT)
    }

    /// Resolves once the init has exited (and with it everything else in the sandbox).
    pub async fn exited(&self) {
        if self.pidfd.readable().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new file descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the syscall just returned this descriptor, and nothing else owns it.
    let file = unsafe { File::from_raw_fd(fd as i32) };
    Ok(OwnedFd::from(file))
}

fn send_signal(pidfd: &OwnedFd, signal: i32) -> io::Result<()> {
    // SAFETY: pidfd_send_signal on a descriptor we own, with no siginfo and no flags.
    let done = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            signal,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
    if done < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
