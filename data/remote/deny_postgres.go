package remote

// postgresDeny are PostgreSQL's functions that reach outside the database
// (the Generic File Access Functions, large objects, adminpack, dblink),
// run SQL given as text (query_to_xml and friends, ts_stat, ts_rewrite),
// change the server or the session (the System Administration Functions:
// settings, signals, backup, replication, statistics, sequences), take
// advisory locks; and the views that read the server's configuration
// files. pg_sleep is allowed: the statement time limit stops it as it
// stops any slow query.
var postgresDeny = denyList{
	functions: merge(
		each(harmFiles,
			"pg_read_file", "pg_read_binary_file", "pg_stat_file", "pg_logdir_ls", "pg_current_logfile",
			"pg_show_all_file_settings", "pg_hba_file_rules", "pg_ident_file_mappings",
			"loread", "lowrite",
			// Large objects, by name rather than by prefix, so that a column
			// called lo_… (x.lo_price is functional notation too) stays usable.
			"lo_import", "lo_export", "lo_get", "lo_put", "lo_open", "lo_close", "lo_creat", "lo_create",
			"lo_unlink", "lo_from_bytea", "lo_lseek", "lo_lseek64", "lo_tell", "lo_tell64",
			"lo_truncate", "lo_truncate64"),
		each(harmPrograms,
			"ts_stat", "ts_rewrite"),
		each(harmState,
			"set_config", "nextval", "setval", "pg_cancel_backend", "pg_terminate_backend", "pg_reload_conf",
			"pg_promote", "pg_switch_wal", "pg_switch_xlog", "pg_create_restore_point",
			"pg_backup_start", "pg_backup_stop", "pg_start_backup", "pg_stop_backup",
			"pg_replication_slot_advance", "pg_sync_replication_slots",
			"pg_notify", "pg_stat_statements_reset", "pg_import_system_collations",
			"pg_nextoid", "txid_current", "pg_current_xact_id", // the OID counter; a transaction id, even read-only
			"pg_log_backend_memory_contexts", "pg_log_standby_snapshot", "pg_export_snapshot",
			"brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range",
			"gin_clean_pending_list", "pg_prewarm", "pg_truncate_visibility_map",
			"pg_wal_replay_pause", "pg_wal_replay_resume", "pg_wal_replay_wait",
			"pg_xlog_replay_pause", "pg_xlog_replay_resume",
			// Replication origins that change state (the pg_replication_origin_status
			// view and the _oid and _progress readers stay allowed).
			"pg_replication_origin_create", "pg_replication_origin_drop", "pg_replication_origin_advance",
			"pg_replication_origin_session_setup", "pg_replication_origin_session_reset",
			"pg_replication_origin_xact_setup", "pg_replication_origin_xact_reset"),
	),
	prefixes: []denyPrefix{
		{"pg_ls_", harmFiles},   // pg_ls_dir, pg_ls_logdir, pg_ls_waldir, pg_ls_tmpdir, …
		{"pg_file_", harmFiles}, // adminpack: pg_file_write, pg_file_rename, pg_file_unlink, pg_file_sync
		{"pg_read_", harmFiles},
		{"dblink", harmPrograms},
		{"query_to_xml", harmPrograms}, // query_to_xml, query_to_xmlschema, query_to_xml_and_xmlschema
		{"cursor_to_xml", harmPrograms},
		{"pg_background_", harmPrograms},
		{"pg_rotate_logfile", harmState},
		{"pg_create_", harmState}, // replication slots
		{"pg_drop_", harmState},
		{"pg_copy_", harmState},
		{"pg_logical_", harmState},
		{"pg_stat_reset", harmState},
		{"pg_restore_", harmState}, // pg_restore_relation_stats, pg_restore_attribute_stats
		{"pg_clear_", harmState},
		{"pg_set_", harmState},
		{"pg_advisory_", harmLocks},
		{"pg_try_advisory_", harmLocks},
	},
	relations: each(harmFiles, "pg_file_settings", "pg_hba_file_rules", "pg_ident_file_mappings"),
}
