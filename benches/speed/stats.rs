//! Percentiles of a series and the one table the benchmark prints.

use std::time::Duration;

/// A series of durations, milliseconds.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    ms: Vec<f64>,
}

impl Samples {
    pub fn push(&mut self, took: Duration) {
        self.ms.push(took.as_secs_f64() * 1000.0);
    }

    /// The `p`th percentile (nearest rank), milliseconds.
    pub fn percentile(&self, p: f64) -> f64 {
        let mut sorted = self.ms.clone();
        sorted.sort_by(f64::total_cmp);
        if sorted.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    }

    pub fn triple(&self) -> String {
        format!(
            "{:.0} / {:.0} / {:.0}",
            self.percentile(50.0),
            self.percentile(95.0),
            self.percentile(99.0)
        )
    }
}

/// One line of the table: what, cordon's figure, the raw Docker floor, and a note.
pub struct Row {
    pub what: String,
    pub cordon: String,
    pub floor: String,
    pub note: String,
}

impl Row {
    pub fn latency(what: &str, ours: &Samples, floor: &Samples) -> Row {
        let ratio = ours.percentile(50.0) / floor.percentile(50.0);
        Row {
            what: format!("{what}, p50 / p95 / p99 ms"),
            cordon: ours.triple(),
            floor: floor.triple(),
            note: format!("p50 = {ratio:.2} × floor"),
        }
    }

    pub fn throughput(clients: usize, ours: f64, floor: f64) -> Row {
        Row {
            what: format!("throughput, {clients} client(s), `print(1)` runs/s"),
            cordon: format!("{ours:.2}"),
            floor: format!("{floor:.2}"),
            note: format!("{:.0} % of floor", 100.0 * ours / floor),
        }
    }

    pub fn kill(ours: &Samples, floor: &Samples) -> Row {
        Row {
            what: "kill after a 300 ms deadline: deadline → stopped, p50 / p95 / p99 ms".into(),
            cordon: ours.triple(),
            floor: floor.triple(),
            note: "floor: Docker API kill → wait returns".into(),
        }
    }
}

pub fn print_table(rows: &[Row]) {
    println!("| what | cordon | raw Docker, same run | note |");
    println!("| --- | --- | --- | --- |");
    for row in rows {
        println!(
            "| {} | {} | {} | {} |",
            row.what, row.cordon, row.floor, row.note
        );
    }
}
