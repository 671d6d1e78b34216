//! Parlor's integration tests, in one binary: one module per behaviour, each against a
//! real server (in-process on an ephemeral port, or a `parlor` child process), and the
//! helpers they share in [`common`].
//!
//! One binary links the server crate once instead of once per behaviour. Its tests run
//! as threads of one process, so none may change process-wide state (environment
//! variables, the current directory, signal handlers, resource limits): child processes
//! get their settings through `Command::env` and `Command::current_dir`, and every
//! server has its own directory, database, port and metrics registry.
//!
//! CI runs on a shared machine that may stall any test for seconds, so no test asserts
//! how long something took: a test waits for the event it needs (a message, a state
//! with a given `seq`, a metric, a stored row, a log line, a process's exit; what
//! nothing announces is polled for with [`waiting::eventually`]), and checks orderings,
//! counts and the values the server reports (the clocks in a state, the thinking time
//! stored with a move, a close frame's reason). A deadline only fails a test whose event
//! never comes. A test sleeps only where time passing is what it tests (a clock running
//! out, a lease lapsing, a budget refilling, an outage), and says so where it does.
//!
//! Tests marked `#[serial(whole_machine)]` take turns: those that start several server
//! processes load both of CI's cores for up to a minute, and those whose server timers
//! are part of the test (a shutdown's grace, a stuck socket's write timeout) would only
//! take longer beside them. Every other test may run beside any.

mod chaos_clients;
mod claims_and_bots_cross_the_fleet;
mod common;
mod conformance;
mod fleet;
mod history;
mod nginx;
mod process;
mod services;
mod waiting;

mod a_bot_takes_over_an_absent_players_seat;
mod a_dead_nodes_games_go_on_elsewhere;
mod a_friend_keeps_the_seat_and_a_bot_comes_when_asked;
mod a_node_may_serve_clients_only;
mod a_redis_outage_freezes_no_game;
mod bot_api_client;
mod bots_fill_seats_and_play;
mod bots_have_accounts;
mod bots_never_hold_up_rooms;
mod bots_play_every_game;
mod bots_play_on_when_a_node_dies;
mod bots_play_through_the_bot_api;
mod bots_take_challenges;
mod clients_are_held_to_their_limits;
mod clients_reach_rooms_on_any_node;
mod clocks_decide_games;
mod crafted_positions_stay_small;
mod database_stalls_are_refused_in_time;
mod draws_and_rematches;
mod every_error_keeps_the_socket_open;
mod every_game_explains_itself;
mod every_game_plays_to_its_end;
mod games_outlive_the_process;
mod games_survive_sigkill;
mod health_and_readiness_tell_the_truth;
mod health_sees_frozen_rooms;
mod http_answers_strangers_safely;
mod limits_hold_across_the_fleet;
mod live_server_properties;
mod lobby_subscribers_see_rooms_come_and_go;
mod moves_come_as_events_to_who_asks;
mod names_cannot_impersonate;
mod nginx_sends_no_502_through_a_rolling_restart;
mod no_stray_server_takes_a_fleets_games;
mod one_server_per_database;
mod operators_have_controls;
mod operators_scrape_metrics;
mod partitions_lose_no_move;
mod people_challenge_bots;
mod players_and_spectators_chat_apart;
mod players_reconnect_or_lose_by_abandonment;
mod postgres_outages_refuse_moves;
mod private_rooms_are_reached_only_by_link;
mod quick_join_pairs_waiting_players;
mod ratings_follow_results;
mod reconnecting_clients_catch_up;
mod results_survive_a_restart;
mod rolling_restarts_end_no_game;
mod room_lists_stay_small_under_many_rooms;
mod shutdown_always_finishes;
mod site_key_sets_follow_the_site;
mod sites_sign_their_users_in;
mod slow_spectators_are_dropped_quietly;
mod spectators_join_without_costing_players;
mod the_lobby_spans_the_fleet;
mod the_opponent_who_is_gone_can_be_claimed_against;
mod the_protocol_is_published;
mod the_socket_holds_against_bad_clients;
mod two_humans_play_while_a_spectator_watches;
mod writes_whose_answer_is_lost_count_once;
