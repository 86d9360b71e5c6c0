pub fn run(_a: Args) -> std::process::ExitCode { std::process::ExitCode::FAILURE }
#[derive(Debug, clap::Args)] pub struct Args {}
