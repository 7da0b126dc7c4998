//! The data image (`cordon image build --flavor data`) in a real hardened sandbox: its
//! libraries import and draw headless into the working directory, and the hardening the
//! default image is checked for in `sandbox_hardening.rs` holds for it too (read-only root,
//! no capabilities, the sandbox's own user, only `lo`, no setuid files, a constant
//! environment). Data jobs always start cold, so only the cold path is run.
//! Needs Docker and the `cordon-python-data:3.11` image; fails (never skips) without them.

mod sandbox_support;

use cordon::supervisor::SandboxSpec;
use sandbox_support::{data_image, docker_with_data_image, run, spec, MIB};

/// A spec of the data image, with memory enough for its libraries.
fn data_spec(test: &str) -> SandboxSpec {
    let mut spec = spec(test);
    spec.image = data_image();
    spec.limits.memory_bytes = 512 * MIB;
    spec
}

/// Runs `code` in a data-image sandbox; returns (stdout, stderr), requiring a clean exit.
async fn data_run(test: &str, code: &str) -> (String, String) {
    let docker = docker_with_data_image().await;
    let run = run(&docker, &data_spec(test), code).await;
    let outcome = run.outcome();
    let stderr = String::from_utf8_lossy(&outcome.stderr).into_owned();
    assert_eq!(outcome.exit_code, Some(0), "program failed: {stderr}");
    assert_eq!(outcome.violation, None, "{stderr}");
    (run.stdout(), stderr)
}

const PLOT: &str = r#"
import os
import numpy, pandas, scipy, scipy.stats, matplotlib
import matplotlib.pyplot as plt
print(matplotlib.get_backend().lower())
df = pandas.DataFrame({"x": numpy.arange(5), "y": numpy.arange(5) ** 2})
print(int(df["y"].sum()))
print(round(float(scipy.stats.pearsonr(df.x, df.y)[0]), 3))
fig, ax = plt.subplots()
ax.plot(df.x, df.y)
fig.savefig("chart.png")
print(os.path.abspath("chart.png"))
print(open("chart.png", "rb").read(8).hex())
print(os.path.getsize("chart.png") > 1000)
"#;

/// numpy, pandas, scipy and matplotlib import and compute in a hardened sandbox, and a
/// figure saved with the Agg backend (chosen by the image, not the program) to the working
/// directory is a PNG, with no complaint about an unwritable config directory.
#[tokio::test]
async fn the_data_libraries_work_and_a_figure_saved_in_the_workdir_is_a_png() {
    let (out, stderr) = data_run("data-plot", PLOT).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "agg", "{out}");
    // 0 + 1 + 4 + 9 + 16, and Pearson's r of x and x² over 0..4 (40 / sqrt(10 * 174)).
    assert_eq!(lines[1], "30", "{out}");
    assert_eq!(lines[2], "0.959", "{out}");
    assert_eq!(lines[3], "/work/chart.png", "{out}");
    assert_eq!(lines[4], "89504e470d0a1a0a", "the PNG signature: {out}");
    assert_eq!(lines[5], "True", "{out}");
    assert!(
        !stderr.contains("Matplotlib") && !stderr.contains("writable"),
        "matplotlib found its config directory unwritable: {stderr}"
    );
}

/// scikit-learn, statsmodels, seaborn, openpyxl and tabulate, the rest of what the data
/// image is for, import too (pandas writes Markdown and Excel through the last two).
#[tokio::test]
async fn the_rest_of_the_data_stack_imports_and_pandas_writes_markdown_and_excel() {
    let code = "import sklearn.linear_model, statsmodels.api, seaborn, PIL, bs4, yaml, requests\n\
                import pandas\n\
                df = pandas.DataFrame({'a': [1, 2]})\n\
                print(df.to_markdown(index=False).splitlines()[0].replace(' ', ''))\n\
                df.to_excel('t.xlsx', index=False)\n\
                print(int(pandas.read_excel('t.xlsx')['a'].sum()))\n";
    let (out, _) = data_run("data-stack", code).await;
    assert_eq!(out, "|a|\n3\n");
}

#[tokio::test]
async fn the_data_images_root_filesystem_is_read_only() {
    let code = "import errno\nfor p in ['/usr/lib/python3/dist-packages/numpy/evil.py', '/etc/evil', '/evil']:\n    try:\n        open(p, 'w')\n        print(p, 'WRITABLE')\n    except OSError as e:\n        print(p, errno.errorcode[e.errno])";
    let (out, _) = data_run("data-rootfs", code).await;
    assert_eq!(out.lines().count(), 3, "{out}");
    for line in out.lines() {
        assert!(line.ends_with(" EROFS"), "{line}");
    }
}

#[tokio::test]
async fn a_data_sandbox_has_no_capabilities_no_new_privileges_and_seccomp() {
    let (status, _) = data_run("data-caps", "print(open('/proc/self/status').read())").await;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("{name} missing from /proc/self/status"))
    };
    for caps in ["CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"] {
        assert_eq!(field(caps), "0000000000000000", "{caps}");
    }
    assert_eq!(field("NoNewPrivs:"), "1");
    assert_eq!(field("Seccomp:"), "2");
}

#[tokio::test]
async fn a_data_sandbox_runs_as_the_sandbox_user_with_no_group_but_its_own() {
    let code =
        "import os\nprint(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups())";
    let (out, _) = data_run("data-uid", code).await;
    assert_eq!(out.trim(), "1000 1000 1000 1000 [1000]");
}

#[tokio::test]
async fn a_data_sandbox_has_only_the_loopback_interface() {
    let code = "import os\nprint(sorted(os.listdir('/sys/class/net')))";
    let (out, _) = data_run("data-net", code).await;
    assert_eq!(out.trim(), "['lo']");
}

/// The build cleared every setuid and setgid bit of the data image, as of the default one.
#[tokio::test]
async fn no_file_of_the_data_image_is_setuid_or_setgid() {
    let code = r#"
import os, stat
found, seen = [], 0
for top, dirs, files in os.walk("/"):
    if top == "/":
        dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "tmp", "work")]
    for name in files:
        path = os.path.join(top, name)
        mode = os.lstat(path).st_mode
        seen += 1
        if mode & (stat.S_ISUID | stat.S_ISGID):
            found.append(path)
print(seen > 10000, found)
"#;
    let (out, _) = data_run("data-setid", code).await;
    assert_eq!(out.trim(), "True []");
}

/// The environment is constants only: the sandbox's own and the image's matplotlib and
/// BLAS settings, nothing of the service's.
#[tokio::test]
async fn a_data_sandbox_environment_is_constants_only() {
    let marker = format!("CORDON_TEST_MARKER_{}", ulid::Ulid::new());
    std::env::set_var(&marker, "host-secret");
    let code = "import os\nfor k, v in sorted(os.environ.items()):\n    print(f'{k}={v}')";
    let (out, _) = data_run("data-env", code).await;
    assert!(!out.contains("host-secret"), "{out}");
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, _)| k)
        .collect();
    for name in &names {
        assert!(
            [
                "PATH",
                "LANG",
                "HOME",
                "HOSTNAME",
                "MPLBACKEND",
                "MPLCONFIGDIR",
                "OPENBLAS_NUM_THREADS",
                "OMP_NUM_THREADS"
            ]
            .contains(name),
            "unexpected variable {name}"
        );
    }
    for set in [
        "MPLBACKEND=Agg",
        "MPLCONFIGDIR=/tmp/matplotlib",
        "OPENBLAS_NUM_THREADS=1",
    ] {
        assert!(out.lines().any(|l| l == set), "{set} missing: {out}");
    }
}
