//! `rnic`: drive an rnic NIC, simulated or (later) real.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "rnic", version, about = "Drive an rnic RoCE v2 NIC (simulated in Verilator, or a card over VFIO)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the NIC's RTL in Verilator.
    #[command(subcommand)]
    Sim(SimCommand),
}

#[derive(Subcommand)]
enum SimCommand {
    /// Replay a capture into the receive pipeline and print a verdict per frame.
    Rx(RxArgs),
    /// Benchmarks in simulated clock cycles.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Receive pipeline at line rate: frames of 64 … 9000 bytes back to back.
    Rx(BenchRxArgs),
}

#[derive(Args)]
struct BenchRxArgs {
    /// Frames per size.
    #[arg(long, default_value_t = 1000)]
    frames: usize,
    /// One JSON object per size.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RxArgs {
    /// Capture to replay (pcap or pcapng, Ethernet link type).
    #[arg(long, value_name = "IN")]
    pcap: PathBuf,
    /// The frames end with their Ethernet FCS (soft-MAC mode: it is checked and stripped).
    /// Without it, frames are taken as a hard MAC delivers them, FCS already stripped.
    #[arg(long)]
    fcs: bool,
    /// One JSON object per frame per line, then a summary object.
    #[arg(long)]
    json: bool,
    /// Write a VCD waveform of the whole receive pipeline to this file.
    #[arg(long, value_name = "FILE.vcd")]
    trace: Option<PathBuf>,
    /// NIC configuration (addresses, QPs, memory regions): not supported yet.
    #[arg(long, value_name = "NIC.toml")]
    config: Option<PathBuf>,
    /// Write the frames the NIC sends in response: not supported yet.
    #[arg(long, value_name = "OUT")]
    pcap_out: Option<PathBuf>,
}

fn sim_rx(a: RxArgs) -> Result<(), String> {
    if a.config.is_some() {
        return Err("--config is not supported yet: the receive pipeline has no QP or memory state to configure \
                    until the responder exists; run without --config"
            .into());
    }
    if a.pcap_out.is_some() {
        return Err("--pcap-out is not supported yet: the simulated NIC sends no responses until the responder \
                    exists; run without --pcap-out"
            .into());
    }
    let report = rnic_driver::sim_rx::run(&a.pcap, a.fcs, a.trace.as_deref()).map_err(|e| e.to_string())?;
    if a.json {
        print!("{}", report.json_lines());
    } else {
        print!("{}", report.table());
    }
    Ok(())
}

fn bench_rx(a: BenchRxArgs) -> Result<(), String> {
    if a.frames == 0 {
        return Err("--frames must be at least 1".into());
    }
    let rows = rnic_driver::bench::rx(a.frames);
    print!("{}", if a.json { rnic_driver::bench::rx_json(&rows) } else { rnic_driver::bench::rx_table(&rows) });
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sim(SimCommand::Rx(a)) => sim_rx(a),
        Command::Sim(SimCommand::Bench(BenchCommand::Rx(a))) => bench_rx(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rnic: {e}");
            ExitCode::from(2)
        }
    }
}
