//! The settings' tests: the shipped file, files, environment variables and refusals.

use figment::Jail;

use super::*;

fn load_in(jail: &Jail, file: Option<&str>) -> Result<Config, String> {
    let path = file.map(|text| {
        jail.create_file("test.toml", text).unwrap();
        PathBuf::from("test.toml")
    });
    Config::load(path.as_deref(), &Overrides::default()).map_err(|e| e.to_string())
}

#[test]
fn the_shipped_file_parses_to_the_defaults() {
    Jail::expect_with(|jail| {
        let shipped = include_str!("../../config.toml");
        assert_eq!(load_in(jail, Some(shipped)).unwrap(), Config::default());
        Ok(())
    });
}

#[test]
fn env_overrides_the_file_and_flags_override_env() {
    Jail::expect_with(|jail| {
        jail.set_env("PARLOR_SERVER__PORT", "9000");
        jail.set_env("PARLOR_STORE__PATH", "elsewhere/p.db");
        jail.set_env("PARLOR_SCORING__PAR__TICTACTOE", "12");
        let config = load_in(jail, Some("[server]\nport = 7000\n")).unwrap();
        assert_eq!(config.server.port, 9000);
        assert_eq!(config.store.path, PathBuf::from("elsewhere/p.db"));
        assert_eq!(config.scoring.par.tictactoe, 12);
        let flags = Overrides {
            port: Some(7100),
            ..Overrides::default()
        };
        assert_eq!(Config::load(None, &flags).unwrap().server.port, 7100);
        Ok(())
    });
}

#[test]
fn unknown_keys_and_variables_are_refused_by_name() {
    Jail::expect_with(|jail| {
        let error = load_in(jail, Some("[server]\nprot = 1\n")).unwrap_err();
        assert!(error.contains("prot"), "{error}");
        let error = load_in(jail, Some("[scoring.par]\ngo = 1\n")).unwrap_err();
        assert!(error.contains("go"), "{error}");
        jail.set_env("PARLOR_TEST_POSTGRES_URL", "postgres://tests/only");
        load_in(jail, None).expect("PARLOR_TEST_* names test services, not settings");
        jail.set_env("PARLOR_ROOMS__IDLE", "5");
        let error = load_in(jail, None).unwrap_err();
        assert!(error.contains("idle"), "{error}");
        Ok(())
    });
}

#[test]
fn bad_values_are_refused_by_name() {
    Jail::expect_with(|jail| {
        let error = load_in(jail, Some("[server]\nport = \"high\"\n")).unwrap_err();
        assert!(error.contains("port"), "{error}");
        let error = load_in(jail, Some("[bots]\nfill_level = \"genius\"\n")).unwrap_err();
        assert!(error.contains("fill_level"), "{error}");
        let error = load_in(jail, Some("[server]\nclient_timeout_secs = 5\n")).unwrap_err();
        assert!(error.contains("server.client_timeout_secs"), "{error}");
        for heartbeat in ["0", "46"] {
            let toml = format!("[server]\nheartbeat_timeout_secs = {heartbeat}\n");
            let error = load_in(jail, Some(&toml)).unwrap_err();
            assert!(error.contains("server.heartbeat_timeout_secs"), "{error}");
        }
        let late_claim = "[rooms]\nreconnect_grace_secs = 10\nclaim_after_secs = 11\n";
        let error = load_in(jail, Some(late_claim)).unwrap_err();
        assert!(error.contains("rooms.claim_after_secs"), "{error}");
        let at_once = load_in(jail, Some("[rooms]\nclaim_after_secs = 0\n"));
        assert!(at_once.is_ok(), "{at_once:?}");
        let error = load_in(jail, Some("[store]\nwriter_nice = 20\n")).unwrap_err();
        assert!(error.contains("store.writer_nice"), "{error}");
        let error = load_in(jail, Some("[cluster]\nowns_rooms = false\n")).unwrap_err();
        assert!(error.contains("cluster.owns_rooms"), "{error}");
        let fleet =
            "[store]\nurl = \"postgres://db/parlor\"\n[cluster]\nredis_url = \"redis://r\"\n";
        let error = load_in(jail, Some(&format!("{fleet}lease_ms = 999\n"))).unwrap_err();
        assert!(error.contains("cluster.lease_ms"), "{error}");
        let serving = load_in(jail, Some(&format!("{fleet}owns_rooms = false\n")));
        assert!(serving.is_ok(), "{serving:?}");
        let missing = Config::load(Some(Path::new("nope.toml")), &Overrides::default());
        assert!(matches!(missing, Err(ConfigError::MissingFile(_))));
        Ok(())
    });
}
