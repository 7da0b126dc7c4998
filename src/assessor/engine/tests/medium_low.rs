//! MEDIUM and LOW rules, with the constant cases that must stay quiet.

use super::*;

#[test]
fn shell_true_with_runtime_command() {
    // shell=True or os.system with a run-time command is MEDIUM; constants are not.
    fires(
        "CRD301",
        "import subprocess\nsubprocess.run(cmd, shell=True)\n",
    );
    fires("CRD301", "import os\nos.system('ls ' + user)\n");
    fires("CRD301", "import os\nos.system(f'echo {name}')\n");
    silent(
        "CRD301",
        "import subprocess\nsubprocess.run('ls -l', shell=True)\n",
    );
    silent(
        "CRD301",
        "import subprocess\nsubprocess.run(['ls', path])\n",
    );
    level(
        Level::Medium,
        "import subprocess\nsubprocess.run(cmd, shell=True)\n",
    );
}

#[test]
fn argv_whose_program_comes_from_outside() {
    // A list-form command whose program is taken from the environment, the command line
    // or input is as open as a shell line built from them; a constant program with
    // outside arguments is not.
    for source in [
        "import os, shlex, subprocess\nsubprocess.run(shlex.split(os.environ['CMD']))\n",
        "import subprocess, sys\nsubprocess.run(sys.argv[1:])\n",
        "import os, subprocess\nsubprocess.Popen([os.environ['PROG'], 'x'])\n",
        "import subprocess\nsubprocess.run(input().split())\n",
        "import subprocess, sys\nsubprocess.check_output(sys.stdin.readline().split())\n",
        "import os\ntool = os.getenv('TOOL', 'ls')\nos.execvp(tool, [tool, '-l'])\n",
        "from sys import argv\nimport subprocess\nsubprocess.call(argv[1:] + ['--verbose'])\n",
        "import argparse, subprocess\np = argparse.ArgumentParser()\np.add_argument('prog')\na = p.parse_args()\nsubprocess.run([a.prog, '--version'])\n",
    ] {
        fires("CRD301", source);
        level(Level::Medium, source);
    }
    silent(
        "CRD301",
        "import subprocess, sys\nsubprocess.run(['git', 'clone', sys.argv[1]])\n",
    );
    silent(
        "CRD301",
        "from argparse import ArgumentParser\nimport subprocess\np = ArgumentParser()\np.add_argument('--url')\nsubprocess.run(['git', 'clone', p.parse_args().url])\n",
    );
    silent(
        "CRD301",
        "import os, subprocess\nsubprocess.run(['python3', '-m', 'pytest'] + os.environ.get('ARGS', '').split())\n",
    );
    silent(
        "CRD301",
        "import subprocess\ndef run(args):\n    return subprocess.run(args, check=True)\nrun(['make', 'all'])\n",
    );
}

#[test]
fn unsafe_deserialization() {
    // pickle/marshal and yaml.load without a safe loader are MEDIUM.
    fires("CRD302", "import pickle\nobj = pickle.loads(data)\n");
    fires("CRD302", "import yaml\ncfg = yaml.load(text)\n");
    silent(
        "CRD302",
        "import yaml\ncfg = yaml.load(text, Loader=yaml.SafeLoader)\n",
    );
    silent("CRD302", "import yaml\ncfg = yaml.safe_load(text)\n");
}

#[test]
fn loading_back_the_programs_own_pickle_is_not_unsafe_deserialization() {
    // A cache the program pickled itself is its own data; a pickle file it did not write,
    // or one it wrote with bytes of its own making, is not vouched for.
    silent(
        "CRD302",
        "import pickle\nPATH = 'model.pkl'\nwith open(PATH, 'wb') as f:\n    pickle.dump({'w': [1, 2]}, f)\nwith open(PATH, 'rb') as f:\n    model = pickle.load(f)\n",
    );
    silent(
        "CRD302",
        "import joblib\nfrom sklearn.linear_model import LinearRegression\nm = LinearRegression()\njoblib.dump(m, 'model.joblib')\nm2 = joblib.load('model.joblib')\n",
    );
    fires(
        "CRD302",
        "import pickle\nwith open('upload.pkl', 'rb') as f:\n    data = pickle.load(f)\n",
    );
    fires(
        "CRD302",
        "import pickle\nopen('p.pkl', 'wb').write(blob)\nwith open('p.pkl', 'rb') as f:\n    data = pickle.load(f)\n",
    );
    // A cache loaded before the line that writes it, or keyed at run time; another file
    // loaded while the program pickles elsewhere, or a cache file that also got decoded
    // bytes, is not.
    silent(
        "CRD302",
        "import joblib, os\nP = 'artifacts/m.joblib'\ndef get():\n    if os.path.exists(P):\n        return joblib.load(P)\n    joblib.dump({'w': 1}, P)\nget()\n",
    );
    silent(
        "CRD302",
        "import pickle\nfrom pathlib import Path\ndef cached(key):\n    p = Path('.cache') / f'{key}.pkl'\n    if p.exists():\n        with p.open('rb') as fh:\n            return pickle.load(fh)\n    with p.open('wb') as fh:\n        pickle.dump(key * 2, fh)\ncached(3)\n",
    );
    fires(
        "CRD302",
        "import base64, pickle\nopen('s.pkl', 'wb').write(base64.b64decode(P))\nstate = pickle.load(open('s.pkl', 'rb'))\npickle.dump(state, open('s.pkl', 'wb'))\n",
    );
    fires(
        "CRD302",
        "import pickle\npickle.dump({}, open('mine.pkl', 'wb'))\nwith open('theirs.pkl', 'rb') as f:\n    pickle.load(f)\n",
    );
}

#[test]
fn compiling_run_time_source_runs_nothing_until_the_code_is_run() {
    silent(
        "CRD303",
        "import sys\nsrc = open(sys.argv[1]).read()\ncompile(src, sys.argv[1], 'exec')\n",
    );
    fires(
        "CRD303",
        "import sys\nsrc = open(sys.argv[1]).read()\nexec(compile(src, 'x', 'exec'))\n",
    );
}

#[test]
fn dynamic_code() {
    // eval/exec of run-time input is MEDIUM; builtins.exec and __builtins__ resolve too.
    fires("CRD303", "eval(input())\n");
    fires("CRD303", "import builtins\nbuiltins.exec(code)\n");
    fires("CRD303", "__builtins__.eval(expr)\n");
    silent("CRD303", "x = eval('1 + 2')\n");
}

#[test]
fn constant_exec_strings_are_analysed_as_code() {
    // Code hidden in a constant exec string is analysed like the program itself.
    fires("CRD104", "exec(\"import shutil\\nshutil.rmtree('/')\")\n");
    fires("CRD202", "exec('import o' + 's; os.setuid(0)')\n");
}

#[test]
fn dynamic_imports() {
    // Imports of run-time module names are MEDIUM; constant names resolve instead.
    fires(
        "CRD304",
        "import importlib\nm = importlib.import_module(name)\n",
    );
    fires("CRD304", "m = __import__(modname)\n");
    silent(
        "CRD304",
        "import importlib\njson = importlib.import_module('json')\n",
    );
}

#[test]
fn network_access() {
    // requests, sockets and urllib are MEDIUM network access.
    fires(
        "CRD305",
        "import requests\nrequests.get('https://example.com')\n",
    );
    fires("CRD305", "import socket\ns = socket.socket()\n");
    fires("CRD305", "from urllib.request import urlopen\nurlopen(u)\n");
    level(
        Level::Medium,
        "import requests\nrequests.get('https://example.com')\n",
    );
}

#[test]
fn weak_hashes() {
    // md5/sha1 are LOW, unless marked not for security.
    fires("CRD401", "import hashlib\nhashlib.md5(b'x').hexdigest()\n");
    fires("CRD401", "import hashlib\nhashlib.new('SHA1')\n");
    silent(
        "CRD401",
        "import hashlib\nhashlib.md5(b'x', usedforsecurity=False)\n",
    );
    silent("CRD401", "import hashlib\nhashlib.sha256(b'x')\n");
}

#[test]
fn plain_subprocess_is_low() {
    // A constant argv subprocess is a LOW finding only.
    let src = "import subprocess\nsubprocess.run(['ls', '-l'], check=True)\n";
    fires("CRD402", src);
    level(Level::Low, src);
}

#[test]
fn unpacking_a_download_is_not_running_it() {
    // A download then `unzip`/`tar`/`wc` of it stays MEDIUM; `sh` of it is BLOCKED; a URL
    // pasted into `wget` is command injection (MEDIUM).
    let fetch = "import os, urllib.request\nurllib.request.urlretrieve(u, 'd.zip')\n";
    level(
        Level::Medium,
        &format!("{fetch}os.system(f'unzip -o d.zip -d {{out}}')\n"),
    );
    level(
        Level::Medium,
        &format!("{fetch}os.system('tar xf d.zip && wc -c d.zip')\n"),
    );
    level(Level::Blocked, &format!("{fetch}os.system('sh d.zip')\n"));
    level(
        Level::Medium,
        "import os, sys\nos.system('wget ' + sys.argv[1])\n",
    );
}
