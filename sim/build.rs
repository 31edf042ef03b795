//! Builds a Verilator model of every RTL top in `rnic_hdl::gen::TOPS`:
//! Verilog from the generator → `verilator --cc` → C++ compiled with the `cc` crate, plus a small
//! generated `extern "C"` shim per top (new/free/eval/set/get by port index, VCD tracing).
//! Unchanged Verilog (with an unchanged build.rs) is not verilated or compiled again: the
//! previous objects in OUT_DIR are reused.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Port {
    name: String,
    input: bool,
    width: usize,
}

/// Port list of the first module, from rust-hdl's `input wire [N:0] name;` declarations.
fn ports(verilog: &str) -> Vec<Port> {
    let mut out = Vec::new();
    for line in verilog.lines().map(str::trim) {
        if line.starts_with("endmodule") {
            break;
        }
        let input = line.starts_with("input ");
        if !input && !line.starts_with("output ") {
            continue;
        }
        let decl = line.trim_end_matches(';');
        let name = decl.split_whitespace().last().expect("port name").to_string();
        let width = match (decl.find('['), decl.find(':')) {
            (Some(a), Some(b)) => decl[a + 1..b].parse::<usize>().expect("port msb") + 1,
            _ => 1,
        };
        out.push(Port { name, input, width });
    }
    out
}

fn shim(top: &str, ports: &[Port]) -> String {
    let mut c = String::new();
    let class = format!("V{top}");
    writeln!(c, "#include \"{class}.h\"\n#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n#include <cstdint>").unwrap();
    writeln!(c, "struct H_{top} {{ VerilatedContext ctx; {class}* m; VerilatedVcdC* vcd; uint64_t t; }};").unwrap();
    writeln!(c, "extern \"C\" {{").unwrap();
    writeln!(c, "void* {top}_new() {{ auto* h = new H_{top}(); h->ctx.traceEverOn(true); h->m = new {class}(&h->ctx, \"{top}\"); h->vcd = nullptr; h->t = 0; return h; }}").unwrap();
    writeln!(c, "void {top}_free(void* p) {{ auto* h = (H_{top}*)p; if (h->vcd) {{ h->vcd->close(); delete h->vcd; }} h->m->final(); delete h->m; delete h; }}").unwrap();
    writeln!(c, "void {top}_eval(void* p) {{ auto* h = (H_{top}*)p; h->m->eval(); if (h->vcd) h->vcd->dump(h->t++); }}").unwrap();
    writeln!(c, "int {top}_trace(void* p, const char* path) {{ auto* h = (H_{top}*)p; if (h->vcd) return 1; h->vcd = new VerilatedVcdC; h->m->trace(h->vcd, 99); h->vcd->open(path); return h->vcd->isOpen() ? 0 : 2; }}").unwrap();
    writeln!(c, "void {top}_set(void* p, int port, const uint32_t* w) {{ auto* m = ((H_{top}*)p)->m; switch (port) {{").unwrap();
    for (i, p) in ports.iter().enumerate().filter(|(_, p)| p.input) {
        let n = p.name.as_str();
        match p.width {
            0..=32 => writeln!(c, "case {i}: m->{n} = w[0]; break;"),
            33..=64 => writeln!(c, "case {i}: m->{n} = (uint64_t)w[0] | ((uint64_t)w[1] << 32); break;"),
            wd => writeln!(c, "case {i}: for (int k = 0; k < {}; k++) m->{n}[k] = w[k]; break;", wd.div_ceil(32)),
        }
        .unwrap();
    }
    writeln!(c, "default: break; }} }}").unwrap();
    writeln!(c, "void {top}_get(void* p, int port, uint32_t* w) {{ auto* m = ((H_{top}*)p)->m; switch (port) {{").unwrap();
    for (i, p) in ports.iter().enumerate() {
        let n = p.name.as_str();
        match p.width {
            0..=32 => writeln!(c, "case {i}: w[0] = m->{n}; break;"),
            33..=64 => writeln!(c, "case {i}: w[0] = (uint32_t)m->{n}; w[1] = (uint32_t)(m->{n} >> 32); break;"),
            wd => writeln!(c, "case {i}: for (int k = 0; k < {}; k++) w[k] = m->{n}[k]; break;", wd.div_ceil(32)),
        }
        .unwrap();
    }
    writeln!(c, "default: break; }} }}\n}}").unwrap();
    c
}

fn rust_bindings(top: &str, ports: &[Port]) -> String {
    let mut r = String::new();
    writeln!(r, "unsafe extern \"C\" {{").unwrap();
    writeln!(r, "    fn {top}_new() -> *mut std::ffi::c_void;").unwrap();
    writeln!(r, "    fn {top}_free(h: *mut std::ffi::c_void);").unwrap();
    writeln!(r, "    fn {top}_eval(h: *mut std::ffi::c_void);").unwrap();
    writeln!(r, "    fn {top}_trace(h: *mut std::ffi::c_void, path: *const std::ffi::c_char) -> i32;").unwrap();
    writeln!(r, "    fn {top}_set(h: *mut std::ffi::c_void, port: i32, w: *const u32);").unwrap();
    writeln!(r, "    fn {top}_get(h: *mut std::ffi::c_void, port: i32, w: *mut u32);").unwrap();
    writeln!(r, "}}").unwrap();
    let port_list: Vec<String> = ports
        .iter()
        .map(|p| format!("PortInfo {{ name: {:?}, input: {}, width: {} }}", p.name, p.input, p.width))
        .collect();
    writeln!(
        r,
        "pub(crate) const {}: TopInfo = TopInfo {{ name: {top:?}, ports: &[{}], new: {top}_new, free: {top}_free, eval: {top}_eval, trace: {top}_trace, set: {top}_set, get: {top}_get }};",
        top.to_uppercase(),
        port_list.join(", ")
    )
    .unwrap();
    r
}

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output();
    match out {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        _ => panic!("verilator not found: run scripts/setup (it installs Verilator 5 from apt)"),
    }
}

fn build_top(top: &str, out: &Path, root: &Path) -> String {
    let verilog = rnic_hdl::gen::verilog(top).expect("listed top");
    let dir = out.join(top);
    std::fs::create_dir_all(&dir).unwrap();
    let vfile = dir.join(format!("{top}.v"));
    let lib = dir.join(format!("lib{top}_model.a"));
    // The model is rebuilt when the Verilog or this recipe (build.rs itself) changes.
    let key = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        verilog.hash(&mut h);
        include_str!("build.rs").hash(&mut h);
        format!("{:016x}", h.finish())
    };
    let key_file = dir.join("model.key");
    let unchanged = std::fs::read_to_string(&key_file).ok().as_deref() == Some(key.as_str()) && lib.exists();
    let ports = ports(&verilog);
    if !unchanged {
        std::fs::write(&vfile, &verilog).unwrap();
        let mdir = dir.join("obj");
        let _ = std::fs::remove_dir_all(&mdir);
        let status = Command::new("verilator")
            .args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "--trace", "--no-timing"])
            .args(["-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", top, "--prefix"])
            .arg(format!("V{top}"))
            .arg("-Mdir")
            .arg(&mdir)
            .arg(&vfile)
            .status()
            .expect("run verilator");
        assert!(status.success(), "verilator failed on {top}");
        std::fs::write(dir.join("shim.cpp"), shim(top, &ports)).unwrap();
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .std("c++17")
            .opt_level(2)
            .warnings(false)
            .flag_if_supported("-Wno-unused-parameter")
            .flag_if_supported("-faligned-new")
            .include(&mdir)
            .include(root.join("include"))
            .include(root.join("include/vltstd"))
            .file(dir.join("shim.cpp"))
            .file(root.join("include/verilated.cpp"))
            .file(root.join("include/verilated_threads.cpp"))
            .file(root.join("include/verilated_vcd_c.cpp"))
            .out_dir(&dir)
            .cargo_metadata(false);
        let mut cpp: Vec<PathBuf> = std::fs::read_dir(&mdir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
            .collect();
        cpp.sort();
        build.files(cpp);
        build.compile(&format!("{top}_model"));
        std::fs::write(&key_file, &key).unwrap();
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static={top}_model");
    rust_bindings(top, &ports)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let root = verilator_root();
    let mut bindings = String::new();
    for top in rnic_hdl::gen::TOPS {
        bindings.push_str(&build_top(top, &out, &root));
    }
    let all: Vec<String> = rnic_hdl::gen::TOPS.iter().map(|t| format!("&{}", t.to_uppercase())).collect();
    bindings.push_str(&format!("pub(crate) const ALL_TOPS: &[&TopInfo] = &[{}];\n", all.join(", ")));
    println!("cargo:rustc-link-lib=dylib=stdc++");
    std::fs::write(out.join("models.rs"), bindings).unwrap();
}
