//! The numbers a cordon process exposes, and their Prometheus text rendering. Pure: the
//! observer feeds it, the HTTP endpoint renders it.

use std::collections::BTreeMap;
use std::fmt::Write;

/// Upper bounds (seconds) of the request latency histogram buckets.
pub const LATENCY_BUCKETS: [f64; 10] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0];

/// What this process has seen on the bus.
#[derive(Debug, Default, Clone)]
pub struct Registry {
    pub jobs_by_status: BTreeMap<String, u64>,
    pub violations_by_kind: BTreeMap<String, u64>,
    pub audit_appends: u64,
    /// Sandboxes running per host, from the latest load reports.
    pub containers_running: BTreeMap<String, u64>,
    /// Messages waiting per stream, filled in at scrape time.
    pub queue_depth: BTreeMap<String, u64>,
    latency_counts: [u64; LATENCY_BUCKETS.len()],
    latency_count: u64,
    latency_sum: f64,
}

impl Registry {
    pub fn record_result(&mut self, status: &str, latency_seconds: Option<f64>) {
        *self.jobs_by_status.entry(status.to_string()).or_default() += 1;
        if let Some(seconds) = latency_seconds {
            self.observe_latency(seconds);
        }
    }

    pub fn record_violation(&mut self, kind: &str) {
        *self.violations_by_kind.entry(kind.to_string()).or_default() += 1;
    }

    fn observe_latency(&mut self, seconds: f64) {
        for (bound, count) in LATENCY_BUCKETS.iter().zip(self.latency_counts.iter_mut()) {
            if seconds <= *bound {
                *count += 1;
            }
        }
        self.latency_count += 1;
        self.latency_sum += seconds;
    }

    /// The Prometheus text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        family(
            &mut out,
            "cordon_jobs_total",
            "counter",
            "Requests ended, by status.",
        );
        for (status, n) in &self.jobs_by_status {
            let _ = writeln!(out, "cordon_jobs_total{{status=\"{status}\"}} {n}");
        }
        family(
            &mut out,
            "cordon_violations_total",
            "counter",
            "Sandboxes killed, by violated limit.",
        );
        for (kind, n) in &self.violations_by_kind {
            let _ = writeln!(out, "cordon_violations_total{{kind=\"{kind}\"}} {n}");
        }
        family(
            &mut out,
            "cordon_audit_appends_total",
            "counter",
            "Audit events submitted for appending.",
        );
        let _ = writeln!(out, "cordon_audit_appends_total {}", self.audit_appends);
        family(
            &mut out,
            "cordon_containers_running",
            "gauge",
            "Sandboxes running, by host.",
        );
        for (host, n) in &self.containers_running {
            let _ = writeln!(out, "cordon_containers_running{{host=\"{host}\"}} {n}");
        }
        family(
            &mut out,
            "cordon_queue_depth",
            "gauge",
            "Messages waiting, by JetStream stream.",
        );
        for (stream, n) in &self.queue_depth {
            let _ = writeln!(out, "cordon_queue_depth{{stream=\"{stream}\"}} {n}");
        }
        self.render_latency(&mut out);
        out
    }

    fn render_latency(&self, out: &mut String) {
        let name = "cordon_request_latency_seconds";
        family(out, name, "histogram", "From submission to result.");
        for (bound, count) in LATENCY_BUCKETS.iter().zip(self.latency_counts) {
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {}", self.latency_count);
        let _ = writeln!(out, "{name}_sum {}", self.latency_sum);
        let _ = writeln!(out, "{name}_count {}", self.latency_count);
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_a_cumulative_histogram_render_in_prometheus_text() {
        let mut registry = Registry::default();
        registry.record_result("completed", Some(0.07));
        registry.record_result("violation", Some(3.0));
        registry.record_violation("timeout");
        let text = registry.render();
        assert!(text.contains("cordon_jobs_total{status=\"completed\"} 1"));
        assert!(text.contains("cordon_violations_total{kind=\"timeout\"} 1"));
        assert!(text.contains("cordon_request_latency_seconds_bucket{le=\"0.1\"} 1"));
        assert!(text.contains("cordon_request_latency_seconds_bucket{le=\"5\"} 2"));
        assert!(text.contains("cordon_request_latency_seconds_count 2"));
        assert!(text.contains("# TYPE cordon_jobs_total counter"));
    }
}
