//! `cordon mcp`: cordon as a Model Context Protocol server (rmcp), so an assistant can run
//! Python through it as a tool. The tools submit requests with the Rust client like any
//! other client does: every cell is assessed, sandboxed, watched and audited the same way.
//!
//! - `tools`: the tools (`run_python`, `new_session`, `close_session`, `list_packages`) and
//!   their descriptions, which state the live limits.
//! - `render`: a result as text for a model (pure).

pub mod render;
pub mod tools;

pub use tools::CordonTools;
