//! `rnic-gen [OUT_DIR]`: write the Verilog of every top to OUT_DIR (default target/verilog),
//! one `<top>.v` each.

use std::path::PathBuf;

fn main() {
    let arg = std::env::args().nth(1);
    if arg.as_deref().is_some_and(|a| a.starts_with('-')) {
        println!("usage: rnic-gen [OUT_DIR]   (default target/verilog): writes <top>.v for every RTL top");
        std::process::exit(if matches!(arg.as_deref(), Some("-h" | "--help")) { 0 } else { 2 });
    }
    let out = arg.map(PathBuf::from).unwrap_or_else(|| PathBuf::from("target/verilog"));
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("rnic-gen: cannot create {}: {e}", out.display());
        std::process::exit(1);
    }
    for top in rnic_hdl::gen::TOPS {
        let v = rnic_hdl::gen::verilog(top).expect("every listed top generates");
        let path = out.join(format!("{top}.v"));
        if let Err(e) = std::fs::write(&path, v) {
            eprintln!("rnic-gen: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("{}", path.display());
    }
}
