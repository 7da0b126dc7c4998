//! The images `cordon image build` makes, as recipes: the Debian packages debootstrap
//! installs, the build-only packages purged after it, the environment set at import, and
//! the program the smoke test runs. Each recipe is also written on the image (labels and
//! environment), so `is_current` tells an image built from an older recipe.

use std::collections::HashMap;

/// Which image to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Flavor {
    /// python3 and pip: the default sandbox image (`sandbox.image`).
    Default,
    /// The default plus numpy, pandas, matplotlib, scipy and the data libraries beside them.
    Data,
}

/// The label naming the packages an image was built from.
pub const RECIPE_LABEL: &str = "cordon.image.packages";
/// The label naming the packages purged after debootstrap (absent when none were).
pub const PURGED_LABEL: &str = "cordon.image.purged";

/// The default image: Python and pip (pip, so dependency fetching through the egress
/// proxy works unchanged).
const DEFAULT_PACKAGES: &str = "python3,python3-pip";

/// The data image: what a data assistant reaches for, all from Debian (bookworm: numpy
/// 1.24, pandas 1.5, matplotlib 3.6, scipy 1.10, scikit-learn 1.2). Beside the four asked
/// for: scikit-learn and statsmodels (models), seaborn (plots), Pillow (images),
/// openpyxl (Excel for pandas), tabulate (`DataFrame.to_markdown`, what a model reads
/// best), Jinja2 (`DataFrame.style`), Beautiful Soup and lxml (`read_html`, scraping),
/// PyYAML, requests (for `network: allowlist`).
const DATA_PACKAGES: &str = "python3,python3-pip,python3-numpy,python3-pandas,\
python3-matplotlib,python3-scipy,python3-sklearn,python3-statsmodels,python3-seaborn,\
python3-pil,python3-openpyxl,python3-tabulate,python3-jinja2,python3-bs4,python3-lxml,\
python3-yaml,python3-requests";

/// Debian's scipy depends on pythran, a compiler of Python to C++ that scipy needs only
/// to be built, and pythran on a C++ toolchain, Boost's headers and Python's development
/// files: about 450 MB a sandbox never uses (and a compiler it should not have). They are
/// purged (`dpkg --purge --force-depends`) once debootstrap is done; the smoke test then
/// checks scipy still imports.
const DATA_PURGED: &str = "python3-pythran,python3-beniget,python3-gast,python3-ply,\
g++,g++-12,gcc,gcc-12,cpp,cpp-12,libstdc++-12-dev,libgcc-12-dev,libasan8,liblsan0,libtsan2,\
libubsan1,libitm1,libcc1-0,binutils,binutils-common,binutils-x86-64-linux-gnu,libbinutils,\
libctf0,libctf-nobfd0,libgprofng0,libboost-dev,libboost1.74-dev,libxsimd-dev,\
libopenblas-dev,libopenblas-pthread-dev,libc6-dev,libc-dev-bin,linux-libc-dev,libcrypt-dev,\
libnsl-dev,libtirpc-dev,rpcsvc-proto,libexpat1-dev,zlib1g-dev,python3-all,python3-all-dev,\
python3-dev,python3.11-dev,libpython3-all-dev,libpython3-dev,libpython3.11-dev,\
libjs-sphinxdoc,libjs-underscore";

/// Every image's environment (the sandbox sets PATH, LANG and HOME again itself).
const BASE_ENVIRONMENT: [&str; 2] = ["PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"];

/// The data image's: matplotlib draws without a display and keeps its config and font
/// cache in /tmp (a tmpfs; the root is read-only, and the working directory is the
/// program's own); OpenBLAS and OpenMP use one thread, since a sandbox sees every CPU of
/// the host and a thread per CPU would run into its pids limit.
const DATA_ENVIRONMENT: [&str; 4] = [
    "MPLBACKEND=Agg",
    "MPLCONFIGDIR=/tmp/matplotlib",
    "OPENBLAS_NUM_THREADS=1",
    "OMP_NUM_THREADS=1",
];

/// The smoke test of every image: pip is there and Python 3 runs.
const DEFAULT_SMOKE: &str = "import sys, pip\nprint(sys.version_info[0])\n";
/// The data image's: its libraries import and a figure renders headless.
const DATA_SMOKE: &str = "import sys, pip, numpy, pandas, scipy.stats, sklearn.linear_model\n\
import matplotlib.pyplot as plt\n\
plt.plot([1, 2], [3, 4])\n\
plt.savefig('/tmp/smoke.png')\n\
print(sys.version_info[0])\n";

impl Flavor {
    /// The `--flavor` value and the short name of `[sandbox.images]` it is built for.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Default => "default",
            Flavor::Data => "data",
        }
    }

    /// Debian packages debootstrap installs (comma-separated), with their dependencies.
    pub fn packages(self) -> &'static str {
        match self {
            Flavor::Default => DEFAULT_PACKAGES,
            Flavor::Data => DATA_PACKAGES,
        }
    }

    /// Packages purged after debootstrap (comma-separated; empty: none).
    pub fn purged(self) -> &'static str {
        match self {
            Flavor::Default => "",
            Flavor::Data => DATA_PURGED,
        }
    }

    /// `NAME=value` lines of the image's environment.
    pub fn environment(self) -> Vec<&'static str> {
        let extra: &[&str] = match self {
            Flavor::Default => &[],
            Flavor::Data => &DATA_ENVIRONMENT,
        };
        BASE_ENVIRONMENT.iter().chain(extra).copied().collect()
    }

    /// The program the new image must run in a sandbox, printing `3`.
    pub fn smoke_code(self) -> &'static str {
        match self {
            Flavor::Default => DEFAULT_SMOKE,
            Flavor::Data => DATA_SMOKE,
        }
    }

    /// The `docker import --change` lines: environment and recipe labels.
    pub fn image_changes(self) -> Vec<String> {
        let mut changes: Vec<String> = self
            .environment()
            .into_iter()
            .map(|variable| format!("ENV {variable}"))
            .collect();
        changes.extend(
            self.labels()
                .into_iter()
                .map(|(key, value)| format!("LABEL {key}={value}")),
        );
        changes
    }

    /// The recipe labels (a label with nothing to say is left off).
    fn labels(self) -> Vec<(&'static str, &'static str)> {
        [
            (RECIPE_LABEL, self.packages()),
            (PURGED_LABEL, self.purged()),
        ]
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .collect()
    }

    /// Whether an image with these labels and environment was built from this recipe.
    pub fn matches(self, labels: &HashMap<String, String>, environment: &[String]) -> bool {
        let labelled = [RECIPE_LABEL, PURGED_LABEL].into_iter().all(|key| {
            let wanted = self.labels().into_iter().find(|(k, _)| *k == key);
            labels.get(key).map(String::as_str) == wanted.map(|(_, value)| value)
        });
        labelled
            && self
                .environment()
                .iter()
                .all(|variable| environment.iter().any(|set| set == variable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image_of(flavor: Flavor) -> (HashMap<String, String>, Vec<String>) {
        let labels = flavor
            .labels()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let environment = flavor.environment().iter().map(|v| v.to_string()).collect();
        (labels, environment)
    }

    #[test]
    fn an_image_matches_its_own_recipe_only() {
        for flavor in [Flavor::Default, Flavor::Data] {
            let (labels, environment) = image_of(flavor);
            assert!(flavor.matches(&labels, &environment), "{flavor:?}");
        }
        let (labels, environment) = image_of(Flavor::Default);
        assert!(!Flavor::Data.matches(&labels, &environment));
        let (labels, environment) = image_of(Flavor::Data);
        assert!(!Flavor::Default.matches(&labels, &environment));
    }

    #[test]
    fn the_default_recipe_is_the_one_images_were_labelled_with_before_flavors() {
        let labels = HashMap::from([(RECIPE_LABEL.to_string(), "python3,python3-pip".into())]);
        let environment = vec![
            "PATH=/usr/local/bin:/usr/bin:/bin".to_string(),
            "LANG=C.UTF-8".to_string(),
        ];
        assert!(Flavor::Default.matches(&labels, &environment));
    }

    #[test]
    fn an_older_package_list_or_a_missing_variable_is_stale() {
        let (mut labels, environment) = image_of(Flavor::Data);
        labels.insert(
            RECIPE_LABEL.into(),
            "python3,python3-pip,python3-numpy".into(),
        );
        assert!(!Flavor::Data.matches(&labels, &environment));
        let (labels, mut environment) = image_of(Flavor::Data);
        environment.retain(|v| !v.starts_with("MPLBACKEND="));
        assert!(!Flavor::Data.matches(&labels, &environment));
    }

    #[test]
    fn nothing_the_data_image_needs_is_purged() {
        let purged: Vec<&str> = DATA_PURGED.split(',').collect();
        for package in DATA_PACKAGES.split(',') {
            assert!(
                !purged.contains(&package),
                "{package} is both kept and purged"
            );
        }
        for runtime in ["libgcc-s1", "libstdc++6", "libc6", "libopenblas0-pthread"] {
            assert!(
                !purged.contains(&runtime),
                "{runtime} is needed at run time"
            );
        }
    }
}
