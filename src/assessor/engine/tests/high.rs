//! HIGH privileged-access families, each with evasions.

use super::*;

#[test]
fn sudo_and_su() {
    // sudo/su through os.system or an argv list is HIGH.
    fires("CRD201", "import os\nos.system('sudo id')\n");
    fires(
        "CRD201",
        "import subprocess\nsubprocess.run(['sudo', '-u', 'root', 'id'])\n",
    );
    fires(
        "CRD201",
        "import subprocess\nsubprocess.run(['su', '-c', 'id'])\n",
    );
    level(Level::High, "import os\nos.system('sudo id')\n");
}

#[test]
fn setuid_family() {
    // setuid and relatives, via import alias and via getattr folding.
    fires("CRD202", "import os\nos.setuid(0)\n");
    fires("CRD202", "from os import setresuid as s\ns(0, 0, 0)\n");
    fires("CRD202", "import os\ngetattr(os, 'setg' + 'id')(0)\n");
    fires(
        "CRD202",
        "import os\ngetattr(os, ''.join(['set', 'e', 'uid']))(0)\n",
    );
}

#[test]
fn setid_bits() {
    // chmod with the setuid/setgid bit, numerically, via stat, or via the shell.
    fires("CRD203", "import os\nos.chmod('/tmp/sh', 0o4755)\n");
    fires(
        "CRD203",
        "import os, stat\nos.chmod(p, stat.S_ISUID | stat.S_IRWXU)\n",
    );
    fires("CRD203", "import os\nos.system('chmod u+s /tmp/sh')\n");
    silent("CRD203", "import os\nos.chmod('run.sh', 0o755)\n");
}

#[test]
fn system_path_writes() {
    // Writing, copying into or deleting under system directories is HIGH.
    fires("CRD204", "open('/etc/hosts', 'a').write('1.2.3.4 x')\n");
    fires(
        "CRD204",
        "import shutil\nshutil.copy('x', '/usr/local/bin/x')\n",
    );
    fires(
        "CRD204",
        "from pathlib import Path\nPath('/etc/motd').write_text('x')\n",
    );
    level(Level::High, "open('/etc/hosts', 'a').write('1.2.3.4 x')\n");
}

#[test]
fn secret_reads() {
    // Shadow file, cloud credentials and SSH keys, however the path is built.
    fires("CRD205", "print(open('/etc/shadow').read())\n");
    fires(
        "CRD205",
        "from pathlib import Path\nPath('~/.aws/credentials').expanduser().read_text()\n",
    );
    fires(
        "CRD205",
        "import os\nk = open(os.path.join(os.environ['HOME'], '.ssh', 'id_rsa')).read()\n",
    );
    fires("CRD205", "import os\nos.system('cat ~/.netrc')\n");
    level(Level::High, "print(open('/etc/shadow').read())\n");
}

#[test]
fn ctypes_libc() {
    // libc loaded by name or through find_library (calls through it pass every runtime
    // check), calling setuid on it, and functions reached by alias or subscript.
    fires("CRD206", "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\n");
    let src = "import ctypes, ctypes.util\nlibc = ctypes.CDLL(ctypes.util.find_library('c'))\nlibc.setuid(0)\n";
    fires("CRD206", src);
    fires("CRD202", src);
    fires(
        "CRD202",
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nf = libc['setuid']\nf(0)\n",
    );
    fires("CRD111", "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nfork = libc.fork\nwhile True:\n    fork()\n");
    fires("CRD104", "import ctypes, glob\nlibc = ctypes.CDLL(None)\nfor p in glob.glob('/home/*/*'):\n    libc.unlink(p.encode())\n");
}

#[test]
fn capabilities() {
    // prctl modules, libc.prctl and setcap change capabilities.
    fires(
        "CRD207",
        "import prctl\nprctl.set_caps((prctl.CAP_SYS_ADMIN, prctl.ALL_FLAGS, True))\n",
    );
    fires(
        "CRD207",
        "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.prctl(1, 0)\n",
    );
    fires(
        "CRD207",
        "import os\nos.system('setcap cap_net_raw+ep /tmp/x')\n",
    );
}

#[test]
fn reading_sensitive_system_files_is_high() {
    // Accounts, logs, root's files and relative climbs to /etc are reconnaissance; the
    // everyday files are not.
    level(Level::High, "print(open('/etc/passwd').read())\n");
    level(Level::High, "print(open('../../etc/passwd').read())\n");
    level(
        Level::High,
        "import shutil\nshutil.copy('/var/log/auth.log', 'out.txt')\n",
    );
    level(Level::High, "import os\nos.system('cat /etc/group')\n");
    level(
        Level::Low,
        "print(open('/etc/hosts').read(), open('/proc/cpuinfo').read())\n",
    );
}

#[test]
fn setid_bits_ored_onto_an_unknown_mode() {
    // `st_mode | stat.S_ISUID` has the setuid bit whatever the current mode is.
    fires(
        "CRD203",
        "import os, stat\nos.chmod('x', os.stat('x').st_mode | stat.S_ISUID)\n",
    );
}

#[test]
fn secrets_reached_through_globs_and_library_readers_are_high() {
    // A glob whose pattern can only name shell histories, and netrc's parser (which reads
    // ~/.netrc by itself), read secrets; a glob of data files does not.
    level(
        Level::High,
        "from pathlib import Path\nfor h in Path.home().glob('.*_history'):\n    lines = h.read_text().splitlines()\n",
    );
    level(
        Level::High,
        "import glob, os\nfor f in glob.glob(os.path.expanduser('~/.*history*')):\n    print(open(f).read()[-500:])\n",
    );
    level(
        Level::High,
        "import netrc\nlogins = netrc.netrc().hosts\nprint(list(logins))\n",
    );
    level(
        Level::Low,
        "import glob, csv\nfor f in glob.glob('data/*.csv'):\n    rows = list(csv.reader(open(f)))\n",
    );
}

#[test]
fn credential_files_found_below_their_directories_or_named_by_tools() {
    // A glob below gcloud's directory, gh's and npm's token files, `.env` files found
    // from home, a default read through `os.environ.get`.
    fires(
        "CRD205",
        "import glob, os\nfor p in glob.glob(os.path.expanduser('~/.config/gcloud/**/*.json'), recursive=True):\n    print(open(p).read())\n",
    );
    fires(
        "CRD205",
        "import os\nprint(open(os.path.expanduser('~/.config/gh/hosts.yml')).read())\n",
    );
    fires(
        "CRD205",
        "from pathlib import Path\nprint((Path.home() / '.npmrc').read_text())\n",
    );
    fires(
        "CRD205",
        "from pathlib import Path\nfor p in Path.home().rglob('.env*'):\n    print(p.read_text())\n",
    );
    // Public keys, known_hosts and a project's own .env are not credentials.
    silent(
        "CRD205",
        "import glob, os\nfor p in glob.glob(os.path.expanduser('~/.ssh/*.pub')):\n    print(open(p).read())\nprint(open('.env').read())\n",
    );
}

#[test]
fn another_process_root_is_a_container_escape_probe() {
    // `/proc/1/root` is the host's file system when the pid namespace is shared.
    fires(
        "CRD106",
        "from pathlib import Path\nprint((Path('/proc/1/root') / 'etc/hostname').read_text())\n",
    );
    silent(
        "CRD106",
        "import os\nprint(os.listdir('/proc/self/root/tmp'))\n",
    );
}

#[test]
fn browser_databases_opened_with_sqlite_are_read() {
    fires(
        "CRD205",
        "import glob, os, sqlite3\nfor db in glob.glob(os.path.expanduser('~/.mozilla/firefox/*/cookies.sqlite')):\n    print(sqlite3.connect(f'file:{db}?mode=ro', uri=True).execute('SELECT * FROM moz_cookies').fetchall())\n",
    );
    silent(
        "CRD205",
        "import sqlite3\nsqlite3.connect('app.db').execute('SELECT 1')\n",
    );
}

#[test]
fn another_users_home_named_with_a_tilde_is_theirs() {
    // `~root` is /root; writing there changes root's files.
    fires(
        "CRD204",
        "import os\nwith open(os.path.join(os.path.expanduser('~root'), '.pydistutils.cfg'), 'w') as f:\n    f.write('[easy_install]')\n",
    );
    silent(
        "CRD204",
        "import os\nopen(os.path.expanduser('~/notes.txt'), 'w').write('x')\n",
    );
}

#[test]
fn keyboards_hooked_or_read_record_keystrokes() {
    // A keyboard hook or an input device read captures what is typed.
    fires(
        "CRD210",
        "from pynput import keyboard\n\ndef on_press(key):\n    open('keys.txt', 'a').write(str(key))\n\nwith keyboard.Listener(on_press=on_press) as l:\n    l.join()\n",
    );
    fires(
        "CRD210",
        "import glob\nfor dev in glob.glob('/dev/input/event*'):\n    print(open(dev, 'rb').read(24))\n",
    );
}

#[test]
fn raw_and_packet_sockets_are_privileged() {
    // SOCK_RAW and AF_PACKET sockets see or forge any traffic.
    fires(
        "CRD211",
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)\n",
    );
    fires(
        "CRD211",
        "import socket\nsniffer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 3)\n",
    );
    silent(
        "CRD211",
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n",
    );
}

#[test]
fn secrets_saved_to_a_local_file() {
    // The environment's tokens, picked by name and written out, are secrets taken out.
    fires(
        "CRD205",
        "import json, os, re\nkeep = re.compile('TOKEN|SECRET|KEY')\nsnap = {k: v for k, v in os.environ.items() if keep.search(k)}\nwith open('snapshot.json', 'w') as out:\n    json.dump(snap, out)\n",
    );
    // Ordinary settings from the environment are not.
    silent(
        "CRD205",
        "import json, os\nwith open('settings.json', 'w') as out:\n    json.dump({'home': os.environ.get('HOME'), 'lang': os.getenv('LANG')}, out)\n",
    );
}

#[test]
fn credential_files_read_through_configparser_lists_and_location_variables() {
    // `cp.read([...])` reads each file; `AWS_SHARED_CREDENTIALS_FILE` names where the
    // credentials are, so its default is the path read.
    fires(
        "CRD205",
        "import configparser, os\ncp = configparser.ConfigParser()\ncp.read([os.path.expanduser('~/.aws/config'), os.path.expanduser('~/.aws/credentials')])\n",
    );
    fires(
        "CRD205",
        "import configparser, os\ncp = configparser.ConfigParser()\ncp.read(os.environ.get('AWS_SHARED_CREDENTIALS_FILE', os.path.expanduser('~/.aws/credentials')))\n",
    );
}

#[test]
fn paths_built_by_operator_reduction_and_comprehensions_over_known_lists() {
    // `reduce(operator.truediv, [Path("/"), "etc", name])` is `/etc/<name>`.
    fires(
        "CRD208",
        "import functools, operator, pathlib\nbuild = functools.partial(functools.reduce, operator.truediv)\nprint(build([pathlib.Path('/'), 'etc', 'pass' + 'wd']).read_text())\n",
    );
    // The inner clause of a nested comprehension sees each item of a known outer list.
    fires(
        "CRD205",
        "def read(path):\n    with open(path, 'rb') as fh:\n        return fh.read()\nFILES = ['/etc/shadow', '/etc/group']\nframes = [f for p in FILES for f in read(p)]\n",
    );
    // A function returning either an unknown list or a named file still names the file.
    fires(
        "CRD205",
        "import os\nfrom pathlib import Path\ndef paths():\n    env = os.environ.get('KUBECONFIG')\n    if env:\n        return [Path(p) for p in env.split(':')]\n    return [Path.home() / '.kube' / 'config']\nfor p in paths():\n    print(p.read_bytes())\n",
    );
}

#[test]
fn rotated_login_records_found_by_a_glob() {
    fires(
        "CRD208",
        "import glob, gzip\nfor path in glob.glob('/var/log/auth.log*'):\n    opener = gzip.open if path.endswith('.gz') else open\n    with opener(path, 'rt') as fh:\n        print(fh.read())\n",
    );
    silent(
        "CRD208",
        "import glob\nfor path in glob.glob('/var/log/myapp/*.log'):\n    print(open(path).read())\n",
    );
}

#[test]
fn the_known_parts_of_run_time_code_are_analysed() {
    // `{a!r}` of a list is not folded, but the import and call around it are code.
    fires(
        "CRD209",
        "ARGV = ['sh', '-c', 'id']\nsnippet = 'import {m}\\nresult = {m}.{f}({a!r})'.format(m='sub' + 'process', f='check_output', a=ARGV)\nexec(snippet, {})\n",
    );
}

#[test]
fn privilege_and_system_reads_through_classes_and_folding() {
    // `next()` over candidate tools: whichever is found is a privilege tool.
    fires(
        "CRD201",
        "import shutil, subprocess\nTOOL = next((t for t in ('doas', 'sudo') if shutil.which(t)), 'sudo')\nsubprocess.run([TOOL, 'iptables', '-F'])\n",
    );
    // A name reversed from a list of characters.
    fires(
        "CRD201",
        "import subprocess\nsubprocess.run([''.join(reversed(list('odus'))), '-n', 'true'])\n",
    );
    // Mode bits from getattr on stat, folded with reduce(operator.or_).
    fires(
        "CRD203",
        "import functools, operator, os, stat\nBITS = [getattr(stat, n) for n in ('S_I' + 'SUID', 'S_IRWXU')]\nos.chmod('helper', functools.reduce(operator.or_, BITS))\n",
    );
    // Set-id functions looked up in a dict built from zip.
    fires(
        "CRD202",
        "import os\nOPS = dict(zip(('u', 'g'), (getattr(os, 'set' + s) for s in ('uid', 'gid'))))\nOPS['g'](0)\nOPS['u'](0)\n",
    );
    // fileinput reading the account database.
    fires(
        "CRD208",
        "import fileinput\nfor line in fileinput.input(files=('/etc/passwd',)):\n    print(line.split(':')[0])\n",
    );
    // exec taken from `eval.__self__.__dict__`, given code that starts a program.
    fires(
        "CRD209",
        "from functools import partial\nSRC = 'import subprocess\\nsubprocess.run([\"uname\", \"-a\"])'\nrun = partial(eval.__self__.__dict__['exec'])\nrun(SRC, {})\n",
    );
    // A str subclass built by a classmethod and evaluated by its own method.
    fires(
        "CRD209",
        "import builtins\nclass Expr(str):\n    @classmethod\n    def of(cls, parts):\n        return cls(''.join(parts))\n    def run(self):\n        return getattr(builtins, 'ev' + 'al')(self)\nExpr.of([\"__import__('sub\", \"process').getoutput('id')\"]).run()\n",
    );
    // A dict subclass parsed by a classmethod from the cloud credentials file.
    fires(
        "CRD205",
        "import configparser, os\nclass Profiles(dict):\n    @classmethod\n    def parse(cls, path):\n        cp = configparser.ConfigParser()\n        cp.read(path)\n        return cls({n: dict(cp[n]) for n in cp.sections()})\nprint(Profiles.parse(os.path.join(os.path.expanduser('~'), '.aws', 'credentials')))\n",
    );
    // `resolver << lines` runs `__lshift__`, which writes the file under /etc.
    fires(
        "CRD204",
        "import os\nclass Conf:\n    def __init__(self, *parts):\n        self.path = os.path.join(*parts)\n    def __lshift__(self, lines):\n        with open(self.path, 'w') as fh:\n            fh.writelines(lines)\n        return self\nConf('/etc', 'resolv.conf') << ['nameserver 203.0.113.1\\n']\n",
    );
}

#[test]
fn password_stores_keys_and_hidden_calls_reached_indirectly() {
    // The keychain and the Secret Service asked for passwords, kept locally.
    fires(
        "CRD205",
        "import json, subprocess\nout = {}\nfor svc in ('github.com', 'vpn'):\n    out[svc] = subprocess.run(['security', 'find-generic-password', '-s', svc, '-w'], capture_output=True, text=True).stdout\n    out[svc + '-linux'] = subprocess.run(['secret-tool', 'lookup', 'service', svc], capture_output=True, text=True).stdout\nopen('/tmp/pw.json', 'w').write(json.dumps(out))\n",
    );
    // Every private key found in ~/.ssh loaded.
    fires(
        "CRD205",
        "import paramiko\nfrom pathlib import Path\nfor p in (Path.home() / '.ssh').iterdir():\n    try:\n        print(p.name, paramiko.RSAKey.from_private_key_file(str(p)).get_bits())\n    except paramiko.SSHException:\n        pass\n",
    );
    // A wallet file read and copied aside.
    fires(
        "CRD205",
        "import shutil\nfrom pathlib import Path\nshutil.copy(Path.home() / '.bitcoin' / 'wallet.dat', '/tmp/w.bak')\n",
    );
    // `getattr(obj, name)` runs `__getattr__`, which executes a task's text hiding a start.
    fires(
        "CRD209",
        "TASKS = {'who': \"R = __import__('sub' + 'process').run(['id'], capture_output=True).stdout\"}\nclass Lazy:\n    def __getattr__(self, name):\n        scope = {}\n        exec(TASKS[name], scope)\n        return scope['R']\nfor name in TASKS:\n    print(getattr(Lazy(), name))\n",
    );
    // python-prctl: the process made undumpable (no core, no ptrace by its user).
    fires(
        "CRD207",
        "import prctl\nprctl.set_dumpable(False)\nprctl.set_name('kworker/0:1')\n",
    );
}

#[test]
fn hidden_calls_reached_through_item_getters_printing_and_unary_operators() {
    // `itemgetter("eval")` of the builtins' dict, given code that starts a program.
    fires(
        "CRD209",
        "import operator\nrun = operator.itemgetter('ev' + 'al')(vars(__builtins__))\nrun(\"__import__('os').system('id')\")\n",
    );
    // `print(banner)` runs `__str__`, which evaluates each named expression.
    fires(
        "CRD209",
        "EXPR = {'k': \"__import__('subprocess').run(['uname', '-a']).stdout\"}\nclass Banner:\n    def __init__(self, *names):\n        self.names = names\n    def __str__(self):\n        return '\\n'.join(str(eval(EXPR[n])) for n in self.names)\nprint(Banner('k'))\n",
    );
}

#[test]
fn privileged_paths_reached_through_item_methods_split_texts_and_sets() {
    // `prefs[key] = value` runs `__setitem__`, which writes under /root.
    fires(
        "CRD204",
        "import json, os\nclass Prefs:\n    home = os.path.join('/', 'ro' + 'ot')\n    def __init__(self, name):\n        self.dir = os.path.join(self.home, '.config', name)\n    def __setitem__(self, key, value):\n        with open(os.path.join(self.dir, 'prefs.json'), 'w') as fh:\n            json.dump({key: value}, fh)\nprefs = Prefs('fleet')\nprefs['auto_update'] = True\n",
    );
    // A path spread from a split text.
    fires(
        "CRD204",
        "from pathlib import Path\nclass Hosts:\n    path = Path('/', *'etc/hosts'.split('/'))\n    def save(self, lines):\n        self.path.write_text('\\n'.join(lines))\nHosts().save(['0.0.0.0 ads.example.com'])\n",
    );
    // `cfg["k"]` runs `__getitem__`, which reads the shadow file.
    fires(
        "CRD205",
        "class Store:\n    def __getitem__(self, name):\n        with open('/etc/' + name) as fh:\n            return fh.read()\nprint(Store()['shadow'])\n",
    );
    // Globbed system directories, deduplicated and sorted, then removed.
    fires(
        "CRD204",
        "import glob, shutil\npaths = glob.glob('/usr/local/lib/python3.*')\nfor p in sorted(set(paths)):\n    shutil.rmtree(p)\n",
    );
}

#[test]
fn credentials_read_through_libraries() {
    // The user's SSH keys loaded by paramiko in a program that connects nowhere.
    fires(
        "CRD205",
        "from pathlib import Path\nimport paramiko\nTYPES = {'id_rsa': paramiko.RSAKey, 'id_ed25519': paramiko.Ed25519Key}\ndef keys(ssh_dir=Path.home() / '.ssh'):\n    for name, cls in TYPES.items():\n        yield name, cls.from_private_key_file(str(ssh_dir / name))\nfor name, key in keys():\n    print(name, key.get_bits())\n",
    );
    // Other processes' environments through psutil, asked for by attribute name too.
    fires(
        "CRD205",
        "import psutil\nfor p in psutil.process_iter(['pid', 'environ']):\n    print(p.info['environ'])\n",
    );
    fires(
        "CRD205",
        "import psutil\nfor proc in psutil.process_iter(['name']):\n    if proc.info['name'] == 'gunicorn':\n        print(proc.environ().get('DATABASE_URL'))\n",
    );
}

#[test]
fn hidden_calls_in_one_of_several_code_strings() {
    // A dict of snippets run by a key known only at run time: any of them may run.
    fires(
        "CRD209",
        "import sys\nSNIPPETS = {\n    'uptime': \"import subprocess as _s; result = _s.run(['uptime']).stdout\",\n    'disk': \"import shutil as _sh; result = str(_sh.disk_usage('.'))\",\n}\nscope = {}\nexec(SNIPPETS[sys.argv[1]], scope)\n",
    );
    // The same behind `__getattribute__`, reached as attributes.
    fires(
        "CRD209",
        "class Commands:\n    _snippets = {'who': \"import subprocess as _s; result = _s.check_output('who', shell=True)\", 'cwd': \"import os; result = os.getcwd()\"}\n    def __getattribute__(self, name):\n        snippets = object.__getattribute__(self, '_snippets')\n        if name in snippets:\n            scope = {}\n            exec(snippets[name], scope)\n            return scope['result']\n        return object.__getattribute__(self, name)\nprint(Commands().who)\n",
    );
}
