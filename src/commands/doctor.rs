//! `cordon doctor`: prints each check and what to do about failures; exits 1 if any failed.

use std::process::ExitCode;

use crate::config::Settings;

pub async fn doctor(settings: &Settings) -> ExitCode {
    let checks = crate::doctor::run_checks(settings).await;
    for check in &checks {
        let mark = if check.ok { "ok  " } else { "FAIL" };
        super::out(&format!("{mark} {:<9} {}", check.name, check.detail));
        if let Some(fix) = &check.fix {
            super::out(&format!("     {:<9} fix: {fix}", ""));
        }
    }
    if checks.iter().all(|c| c.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
