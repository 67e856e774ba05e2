//! Typed Rust models of the eight data sets, as a user would write them with serde derive.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// `tabular`: uniform employee records.
#[derive(Serialize, Deserialize, Clone)]
pub struct Employees {
    pub employees: Vec<Employee>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Employee {
    pub id: u64,
    pub name: String,
    pub email: String,
    pub department: String,
    pub salary: u64,
    pub years_experience: u32,
    pub active: bool,
}

/// `nested`: orders with a customer object and an item list.
#[derive(Serialize, Deserialize, Clone)]
pub struct Orders {
    pub orders: Vec<Order>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub order_id: String,
    pub customer: Customer,
    pub items: Vec<Item>,
    pub subtotal: f64,
    pub tax: f64,
    pub total: f64,
    pub status: String,
    pub order_date: String,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Customer {
    pub id: u64,
    pub name: String,
    pub email: String,
    pub phone: String,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Item {
    pub sku: String,
    pub name: String,
    pub quantity: u32,
    pub price: f64,
}

/// `analytics`: daily metrics.
#[derive(Serialize, Deserialize, Clone)]
pub struct Analytics {
    pub metrics: Vec<Metric>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Metric {
    pub date: String,
    pub views: u64,
    pub clicks: u64,
    pub conversions: u64,
    pub revenue: f64,
    pub bounce_rate: f64,
}

/// `github`: repository records (real data).
#[derive(Serialize, Deserialize, Clone)]
pub struct Repositories {
    pub repositories: Vec<Repository>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Repository {
    pub id: u64,
    pub name: String,
    pub repo: String,
    pub description: String,
    pub created_at: String,
    pub updated_at: String,
    pub pushed_at: String,
    pub stars: u64,
    pub watchers: u64,
    pub forks: u64,
    pub default_branch: String,
}

/// `event-logs`: semi-uniform log lines, half of them with an error object.
#[derive(Serialize, Deserialize, Clone)]
pub struct EventLogs {
    pub logs: Vec<EventLog>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct EventLog {
    pub timestamp: String,
    pub level: String,
    pub endpoint: String,
    pub status_code: u16,
    pub response_time: u32,
    pub user_id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<EventError>,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct EventError {
    pub message: String,
    pub stack: String,
    pub retryable: bool,
}

/// `keyed`: feature flags keyed by name.
#[derive(Serialize, Deserialize, Clone)]
pub struct Flags {
    pub flags: IndexMap<String, Flag>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Flag {
    pub enabled: bool,
    pub rollout: u32,
    pub owner: String,
    pub updated_at: String,
}

/// `nested-group`: contacts with nested address and plan objects.
#[derive(Serialize, Deserialize, Clone)]
pub struct Contacts {
    pub contacts: Vec<Contact>,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Contact {
    pub name: String,
    pub age: u32,
    pub email: String,
    pub address: Address,
    pub plan: Plan,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Address {
    pub city: String,
    pub country: String,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Plan {
    pub name: String,
    pub price: u32,
}

/// `nested-config`: one deeply nested configuration document.
#[derive(Serialize, Deserialize, Clone)]
pub struct Config {
    pub environment: String,
    pub version: String,
    pub database: Database,
    pub features: IndexMap<String, Feature>,
    pub authentication: Authentication,
    pub permissions: Permissions,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Database {
    pub host: String,
    pub port: u16,
    pub name: String,
    pub pool: Pool,
    pub replicas: Vec<Replica>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Pool {
    pub min: u32,
    pub max: u32,
    pub idle_timeout: u64,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Replica {
    pub host: String,
    pub port: u16,
    pub priority: u32,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Feature {
    pub enabled: bool,
    pub rollout: u32,
    pub variants: Vec<Variant>,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Variant {
    pub name: String,
    pub weight: u32,
    pub config: IndexMap<String, serde_json::Value>,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Authentication {
    pub providers: Vec<Provider>,
    pub session: Session,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    pub name: String,
    pub client_id: String,
    pub scopes: Vec<String>,
    pub config: IndexMap<String, String>,
}

#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub secret: String,
    pub duration: u64,
    pub refresh_threshold: u64,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Permissions {
    pub roles: IndexMap<String, Role>,
    pub groups: IndexMap<String, Group>,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Role {
    pub permissions: Vec<String>,
    pub inherits: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Group {
    pub members: Vec<String>,
    pub roles: Vec<String>,
}
