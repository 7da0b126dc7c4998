//! `cordon image build [--if-missing]`: builds the sandbox image from Debian's packages,
//! showing progress, or does nothing when `--if-missing` and it is already there.

use std::process::ExitCode;

use super::EXIT_UNAVAILABLE;
use crate::cli::ImageCommand;
use crate::config::Settings;

pub async fn image(settings: &Settings, command: ImageCommand) -> ExitCode {
    let ImageCommand::Build { if_missing } = command;
    let image = &settings.sandbox.image;
    if if_missing && already_present(image).await {
        println!("cordon: image {image} is already present and current");
        return ExitCode::SUCCESS;
    }
    println!(
        "cordon: building {image} from Debian {} (debootstrap, then docker import)",
        settings.sandbox.debian_suite
    );
    match crate::image::build(&settings.sandbox, |line| println!("  {line}")).await {
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

async fn already_present(image: &str) -> bool {
    match crate::docker::connect().await {
        Ok(docker) => crate::image::is_current(&docker, image).await,
        Err(_) => false,
    }
}
