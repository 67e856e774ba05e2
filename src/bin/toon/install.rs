//! `toon mcp install CLIENT` and `toon mcp uninstall CLIENT`: arguments onto
//! `toon::mcp::proxy::install`'s request, its plan printed, then applied.

use std::path::PathBuf;

use toon::mcp::proxy::install::{
    Client, Places, Request, Runner, Scope, plan_install, plan_uninstall,
};

use super::choice::LaunchArg;
use super::{ClientFileArgs, Failure, McpCommand};

/// `toon mcp install` or `toon mcp uninstall`.
pub(super) fn run(command: McpCommand) -> Result<(), Failure> {
    match command {
        McpCommand::Install {
            target,
            config,
            launch,
            serve_args,
        } => install(&target, config, launch, serve_args),
        McpCommand::Uninstall { target } => uninstall(&target),
        // `gateway::run` sends only these two here.
        _ => Ok(()),
    }
}

/// This binary's path, links resolved: what an entry that starts it names.
fn this_binary() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| Failure::because("cannot find the path of this toon binary", e))?;
    Ok(std::fs::canonicalize(&exe).unwrap_or(exe))
}

fn request(target: &ClientFileArgs, runner: Runner) -> Result<(Request, Places), Failure> {
    let client: Client = target.client.into();
    let mut request = Request::new(client, runner);
    if target.project {
        let root = std::env::current_dir()
            .map_err(|e| Failure::because("cannot read the current directory", e))?;
        request.scope = Scope::Project(root);
    }
    request.file = target.file.as_ref().map(PathBuf::from);
    let places = Places::from_env().ok_or_else(|| {
        Failure::from("no home directory (HOME is not set): set HOME to find the clients' files")
    })?;
    Ok((request, places))
}

fn install(
    target: &ClientFileArgs,
    config: Option<String>,
    launch: Option<LaunchArg>,
    serve_args: Vec<String>,
) -> Result<(), Failure> {
    let exe = this_binary()?;
    let runner = match launch {
        Some(LaunchArg::Uvx) => Runner::Uvx,
        Some(LaunchArg::Npx) => Runner::Npx,
        Some(LaunchArg::Path) => Runner::Binary(exe),
        None => Runner::detect(&exe),
    };
    let (mut request, places) = request(target, runner)?;
    request.gateway_config = config.map(PathBuf::from);
    request.serve_args = serve_args;
    let plan = plan_install(&request, &places).map_err(Failure::of)?;
    println!("{plan}");
    if target.dry_run {
        println!("dry run: nothing was written");
        return Ok(());
    }
    plan.apply().map_err(Failure::of)?;
    let inspect = if Some(plan.gateway_file()) == default_gateway().as_deref() {
        "toon mcp inspect".to_owned()
    } else {
        format!(
            "toon mcp inspect --config {}",
            plan.gateway_file().display()
        )
    };
    println!(
        "installed: restart {} (or reload its MCP servers); `{inspect}` shows what the gateway \
         serves; `toon mcp uninstall {}` puts everything back",
        request.client,
        request.client.name()
    );
    Ok(())
}

/// The configuration `toon mcp serve` reads without `--config`.
fn default_gateway() -> Option<PathBuf> {
    match std::env::var_os(toon::mcp::proxy::CONFIG_ENV).filter(|v| !v.is_empty()) {
        Some(_) => None,
        None => toon::mcp::proxy::default_path(),
    }
}

fn uninstall(target: &ClientFileArgs) -> Result<(), Failure> {
    // The runner is the install's business: an uninstall reads what it wrote.
    let (request, places) = request(target, Runner::Uvx)?;
    let plan = plan_uninstall(&request, &places).map_err(Failure::of)?;
    println!("{plan}");
    if target.dry_run {
        println!("dry run: nothing was written");
        return Ok(());
    }
    plan.apply().map_err(Failure::of)?;
    println!(
        "uninstalled: restart {} (or reload its MCP servers)",
        request.client
    );
    Ok(())
}
