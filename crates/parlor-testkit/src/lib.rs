//! What Parlor's tests and benchmarks share, kept out of the server: the services some
//! tests need (PostgreSQL and Redis, each named by an environment variable) and the
//! programs some run (nginx), with the count of the tests skipped without them
//! ([`test_services`]), and a PostgreSQL schema
//! made for one test or benchmark run and dropped after it ([`scratch_schema`]); and,
//! for the tests of what the server does when a service fails, a TCP proxy that resets,
//! black-holes or delays the traffic to one ([`fault_proxy`]), a Redis server of a
//! test's own that it can kill and start again ([`redis_server`]), and network
//! namespaces joined to the machine's by links that a test can cut ([`netns`]).
//!
//! The server's own tests, its integration tests and `parlor-bench` depend on it; the
//! server does not.

pub mod fault_proxy;
pub mod netns;
pub mod redis_server;
pub mod scratch_schema;
pub mod test_services;
