//! `cordon image build [--flavor F] [--if-missing]`: builds a sandbox image from Debian's
//! packages, showing progress, or does nothing when `--if-missing` and it is already there
//! and current. `cordon image inspect [NAME] [--json]`: the Python packages of an image.

use std::process::ExitCode;

use super::{out, EXIT_UNAVAILABLE};
use crate::cli::ImageCommand;
use crate::config::Settings;
use crate::image::Flavor;

pub async fn image(settings: &Settings, command: ImageCommand) -> ExitCode {
    match command {
        ImageCommand::Build { if_missing, flavor } => build(settings, flavor, if_missing).await,
        ImageCommand::Inspect { name, json } => inspect(settings, &name, json).await,
    }
}

async fn build(settings: &Settings, flavor: Flavor, if_missing: bool) -> ExitCode {
    let image = crate::image::target_of(&settings.sandbox, flavor);
    if if_missing && already_present(&image, flavor).await {
        println!("cordon: image {image} is already present and current");
        return ExitCode::SUCCESS;
    }
    println!(
        "cordon: building {image} ({} flavor) from Debian {} (debootstrap, then docker import)",
        flavor.name(),
        settings.sandbox.debian_suite
    );
    match crate::image::build(&settings.sandbox, flavor, |line| println!("  {line}")).await {
        Ok(()) => {
            println!("cordon: image {image} is ready");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cordon: cannot build {image}: {error}");
            ExitCode::from(EXIT_UNAVAILABLE)
        }
    }
}

async fn already_present(image: &str, flavor: Flavor) -> bool {
    match crate::docker::connect().await {
        Ok(docker) => crate::image::is_current(&docker, image, flavor).await,
        Err(_) => false,
    }
}

/// Lists the packages of `name`: a short name of `[sandbox.images]`, else a reference.
async fn inspect(settings: &Settings, name: &str, json: bool) -> ExitCode {
    let image = settings
        .sandbox
        .image_named(Some(name))
        .unwrap_or(name)
        .to_string();
    let docker = match crate::docker::connect().await {
        Ok(docker) => docker,
        Err(error) => {
            eprintln!("cordon: {error}");
            return ExitCode::from(EXIT_UNAVAILABLE);
        }
    };
    let inspection = match crate::image::inspect(&docker, &settings.sandbox, &image).await {
        Ok(inspection) => inspection,
        Err(error) => {
            eprintln!("cordon: {error}");
            return ExitCode::from(EXIT_UNAVAILABLE);
        }
    };
    let text = if json {
        serde_json::to_string_pretty(&inspection).unwrap_or_default()
    } else {
        inspection.to_text()
    };
    out(text.trim_end());
    ExitCode::SUCCESS
}
