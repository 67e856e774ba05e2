//! A small MCP server written with rmcp (the official Rust SDK): notes kept in memory, listed
//! as a JSON array (the kind of result TOON makes cheaper), and a tool that waits (for
//! timeouts and cancellation). The proxy's end-to-end tests run it beside third-party servers.
//!
//! ```text
//! cargo run --features mcp-proxy --example notes_server
//! ```

use std::sync::Mutex;
use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServiceExt, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize)]
struct Note {
    id: usize,
    title: String,
    body: String,
    tags: Vec<String>,
}

#[derive(Default)]
struct Notes {
    notes: Mutex<Vec<Note>>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddNote {
    /// A short title.
    title: String,
    /// The note's text.
    body: String,
    /// Labels to find it by.
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ListNotes {
    /// Only notes with this tag.
    tag: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Wait {
    /// How long to wait, in milliseconds (at most 60000).
    millis: u64,
}

#[tool_router(server_handler)]
impl Notes {
    #[tool(description = "Add a note; returns its id")]
    fn add_note(&self, Parameters(AddNote { title, body, tags }): Parameters<AddNote>) -> String {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let id = notes.len() + 1;
        notes.push(Note {
            id,
            title,
            body,
            tags,
        });
        format!("added note {id}")
    }

    #[tool(description = "List notes as a JSON array, optionally only those with a tag")]
    fn list_notes(&self, Parameters(ListNotes { tag }): Parameters<ListNotes>) -> String {
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let picked: Vec<&Note> = notes
            .iter()
            .filter(|n| tag.as_ref().is_none_or(|t| n.tags.contains(t)))
            .collect();
        serde_json::to_string(&picked).unwrap_or_else(|e| format!("cannot list notes: {e}"))
    }

    #[tool(description = "Wait, then say how long")]
    async fn wait(&self, Parameters(Wait { millis }): Parameters<Wait>) -> String {
        let millis = millis.min(60_000);
        tokio::time::sleep(Duration::from_millis(millis)).await;
        format!("waited {millis} ms")
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Notes::default().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
