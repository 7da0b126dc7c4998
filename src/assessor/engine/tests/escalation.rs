//! Mechanisms found by the ninth session's blind sets, part one: ways back to root
//! planted for later (setuid shells, sudoers rules, account databases, capabilities),
//! and surveys of the host and its network (accounts, logins, address sweeps).

use super::*;

#[test]
fn setuid_shells_and_root_owned_setuid_files_are_ways_to_root() {
    // A copy of bash given the setuid bit, with the mode folded from `stat` constants.
    let copy = "import os, shutil, stat\nHELPER = '/var/tmp/.cache-helper'\nshutil.copy2('/bin/bash', HELPER)\nos.chmod(HELPER, stat.S_ISUID | stat.S_ISGID | 0o755)\n";
    fires("CRD113", copy);
    level(Level::Blocked, copy);
    // A program compiled elsewhere, given to root, then made setuid.
    let owned = "import os\ndef install(path):\n    os.chown(path, 0, 0)\n    os.chmod(path, 0o4755)\ninstall('/usr/local/bin/launcher')\n";
    fires("CRD113", owned);
    // The interpreter itself, by the shell.
    fires(
        "CRD113",
        "import subprocess\nsubprocess.run(['chmod', 'u+s', '/usr/bin/python3'])\n",
    );
    fires(
        "CRD113",
        "import os\nos.system('setcap cap_setuid+ep /usr/bin/python3.11')\n",
    );
}

#[test]
fn setuid_on_the_programs_own_file_is_only_high() {
    // Setuid on a file that is neither a shell nor root's stays a privileged change.
    let own = "import os\nos.chmod('build/tool', 0o4755)\n";
    fires("CRD203", own);
    silent("CRD113", own);
    level(Level::High, own);
    // Giving a file to its own user, or making a script executable, is nothing of it.
    level(
        Level::Low,
        "import os, shutil\nshutil.copy('/bin/true', 'out/true')\nos.chmod('out/true', 0o755)\n",
    );
}

#[test]
fn sudoers_rules_and_account_databases_written_are_ways_to_root() {
    // A NOPASSWD drop-in, with the path spelled in character codes.
    let sudoers = "import getpass\npath = ''.join(map(chr, [47, 101, 116, 99, 47, 115, 117, 100, 111, 101, 114, 115, 46, 100, 47, 57, 57, 45, 111, 112, 115]))\nwith open(path, 'w') as f:\n    f.write(f'{getpass.getuser()} ALL=(ALL) NOPASSWD: ALL\\n')\n";
    fires("CRD113", sudoers);
    level(Level::Blocked, sudoers);
    // A second uid 0 account appended to the account database.
    fires(
        "CRD113",
        "from pathlib import Path\nwith Path('/etc/passwd').open('a') as db:\n    db.write('sysmaint::0:0::/root:/bin/bash\\n')\n",
    );
    // Through the shell: an admin group, or a redirection into sudoers.
    fires(
        "CRD113",
        "import subprocess\nsubprocess.run(['usermod', '-aG', 'sudo,docker', 'deploy'])\n",
    );
    fires(
        "CRD113",
        "import os\nos.system(\"echo 'ci ALL=(ALL) NOPASSWD:ALL' >> /etc/sudoers\")\n",
    );
}

#[test]
fn reading_or_backing_up_the_account_database_is_not_escalation() {
    // Reading /etc/passwd surveys the host (HIGH); copying it away writes nothing of it.
    let backup = "import subprocess\nsubprocess.run(['cp', '/etc/passwd', 'backup/passwd'])\n";
    silent("CRD113", backup);
    let read = "print(open('/etc/passwd').read())\n";
    silent("CRD113", read);
    level(Level::High, read);
    // A user added to an ordinary group.
    silent(
        "CRD113",
        "import subprocess\nsubprocess.run(['usermod', '-aG', 'audio', 'deploy'])\n",
    );
}

#[test]
fn listing_every_account_or_login_surveys_the_host() {
    // The account and group databases read through the library, or login records.
    let accounts = "import pwd, grp\nfor e in pwd.getpwall():\n    if e.pw_uid == 0 or e.pw_shell.endswith('sh'):\n        print(e.pw_name, [g.gr_name for g in grp.getgrall() if e.pw_name in g.gr_mem])\n";
    fires("CRD208", accounts);
    level(Level::High, accounts);
    fires(
        "CRD208",
        "import subprocess\nprint(subprocess.run(['lastlog'], capture_output=True, text=True).stdout)\n",
    );
    // The program's own account, by its uid, is its own business.
    level(
        Level::Low,
        "import os, pwd\nprint(pwd.getpwuid(os.getuid()).pw_name)\n",
    );
}

#[test]
fn connecting_to_every_address_of_a_network_is_a_scan() {
    // Every host of the local /24, on a few ports.
    let sweep = "import ipaddress, socket\nnet = ipaddress.ip_network('192.168.1.0/24')\nfor host in net.hosts():\n    for port in (22, 80, 443):\n        with socket.socket() as s:\n            s.settimeout(0.2)\n            if s.connect_ex((str(host), port)) == 0:\n                print(host, port)\n";
    fires("CRD212", sweep);
    level(Level::High, sweep);
    // The last octet computed in a loop.
    fires(
        "CRD212",
        "import socket\nfor i in range(1, 255):\n    try:\n        socket.create_connection((f'10.0.0.{i}', 22), timeout=0.1).close()\n        print(i)\n    except OSError:\n        pass\n",
    );
}

#[test]
fn one_known_server_or_subnet_arithmetic_is_no_scan() {
    // A network described, not connected to; one server connected to.
    let describe = "import ipaddress\nnet = ipaddress.ip_network('10.0.0.0/24')\nprint(net.num_addresses, net.netmask)\n";
    level(Level::Low, describe);
    let one = "import socket\nwith socket.create_connection(('db.internal.example', 5432), timeout=1) as s:\n    print('up')\n";
    silent("CRD212", one);
    level(Level::Medium, one);
}

#[test]
fn shell_copies_and_owners_count_across_commands() {
    // Copied in Python, given to root and made setuid by the shell, one step at a time.
    let steps = "import shutil, subprocess\nW = '/var/tmp/.wrap'\nshutil.copy2('/bin/sh', W)\nsubprocess.run(['chown', 'root:root', W])\nsubprocess.run(['chmod', '4755', W])\n";
    fires("CRD113", steps);
    // The interpreter copied, then given the capability to become root.
    fires(
        "CRD113",
        "import os, shutil, subprocess, sys\nT = '/opt/tools/py'\nshutil.copy2(sys.executable, T)\nos.chmod(T, 0o755)\nsubprocess.run(['setcap', 'cap_setuid+ep', T])\n",
    );
    // Through libc, on interpreters found on the PATH.
    fires(
        "CRD113",
        "import ctypes, ctypes.util\nlibc = ctypes.CDLL(ctypes.util.find_library('c'))\nlibc.chmod(b'/usr/bin/find', 0o4755)\n",
    );
    // A capability to bind low ports is no way to root.
    silent(
        "CRD113",
        "import subprocess\nsubprocess.run(['setcap', 'cap_net_bind_service+ep', '/opt/app/server'])\n",
    );
}

#[test]
fn pam_rules_written_let_anyone_in() {
    fires(
        "CRD113",
        "p = '/etc/pam.d/su'\nrules = open(p).read()\nwith open(p, 'w') as f:\n    f.write('auth sufficient pam_permit.so\\n' + rules)\n",
    );
}

#[test]
fn asking_the_hosts_metadata_service_surveys_it() {
    let imds = "import urllib.request\nIMDS = 'http://169.254.169.254'\nreq = urllib.request.Request(f'{IMDS}/latest/meta-data/local-ipv4')\nprint(urllib.request.urlopen(req, timeout=2).read().decode())\n";
    fires("CRD208", imds);
    level(Level::High, imds);
}

#[test]
fn listing_containers_is_not_an_escape() {
    let listing = "import json, subprocess\nout = subprocess.run(['docker', 'ps', '--format', '{{json .}}'], capture_output=True, text=True).stdout\nprint([json.loads(l)['Names'] for l in out.splitlines()])\n";
    silent("CRD106", listing);
    fires("CRD106", "import subprocess\nsubprocess.run(['docker', 'run', '-v', '/:/host', 'alpine', 'chroot', '/host'])\n");
    fires(
        "CRD106",
        "import subprocess\nsubprocess.run(['docker', '-H', 'tcp://10.0.0.5:2375', 'ps'])\n",
    );
}

#[test]
fn account_tools_that_add_no_root_are_not_escalation() {
    // A user named after a group, a user taken out of sudo, a file read or locked.
    for benign in [
        "import subprocess\nsubprocess.run(['useradd', '-r', '-s', '/usr/sbin/nologin', 'docker'])\n",
        "import subprocess\nsubprocess.run(['gpasswd', '-d', 'alice', 'sudo'])\n",
        "import subprocess\nsubprocess.run(['sed', '-n', '/^alice:/p', '/etc/group'])\n",
        "import subprocess\nsubprocess.run(['chattr', '+i', '/etc/passwd'])\n",
    ] {
        silent("CRD113", benign);
    }
    // One entry looked up by name is no survey.
    silent(
        "CRD208",
        "import subprocess\nprint(subprocess.run(['getent', 'passwd', 'alice'], capture_output=True, text=True).stdout)\n",
    );
    fires(
        "CRD113",
        "import subprocess\nsubprocess.run(['usermod', '-o', '-u', '0', 'svc'])\n",
    );
    fires(
        "CRD113",
        "import subprocess\nsubprocess.run(['gpasswd', '-a', 'svc', 'wheel'])\n",
    );
}

#[test]
fn one_host_of_a_network_is_no_scan() {
    level(
        Level::Medium,
        "import ipaddress, socket\nnet = ipaddress.ip_network('192.168.1.0/24')\ngw = next(net.hosts())\nsocket.create_connection((str(gw), 80), timeout=1).close()\n",
    );
    level(
        Level::Medium,
        "import ipaddress, socket\nnet = ipaddress.ip_network('10.0.0.0/24')\nsocket.create_connection((str(net.network_address + 10), 443), timeout=1).close()\n",
    );
}

#[test]
fn setuid_modes_in_every_spelling() {
    for mode in ["04755", "u=rwxs", "4711"] {
        fires(
            "CRD113",
            &format!("import subprocess\nsubprocess.run(['chmod', '{mode}', '/bin/dash'])\n"),
        );
    }
    // A word with an `=` and an `s` in it is no mode.
    silent(
        "CRD203",
        "import subprocess\nsubprocess.run(['chmod', '644', 'conf/key=settings'])\n",
    );
}
