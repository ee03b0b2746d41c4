package remote

// mysqlDeny are MySQL's and MariaDB's functions that read server files
// (LOAD_FILE; writing files is SELECT … INTO OUTFILE/DUMPFILE, refused by
// the INTO keyword, and LOAD DATA, refused as a statement), run programs
// (the lib_mysqludf_sys UDFs), take named or service locks, wait on
// replication, or change server state (MariaDB sequences, keyring, audit
// log, firewall, version tokens, replication). SLEEP and BENCHMARK are
// allowed: the statement time limit stops them as it stops any slow query.
var mysqlDeny = denyList{
	functions: merge(
		each(harmFiles, "load_file"),
		each(harmPrograms, "sys_exec", "sys_eval", "sys_get", "sys_set"),
		each(harmLocks, "get_lock", "release_lock", "release_all_locks", "is_free_lock", "is_used_lock",
			"service_get_read_locks", "service_get_write_locks", "service_release_locks"),
		each(harmWaits, "master_pos_wait", "source_pos_wait", "master_gtid_wait",
			"wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids"),
		each(harmState, "nextval", "setval"),
	),
	prefixes: []denyPrefix{
		{"keyring_", harmState},
		{"audit_log_", harmState},
		{"version_tokens_", harmState},
		{"mysql_firewall_", harmState},
		{"set_firewall_", harmState},
		{"group_replication_", harmState},
		{"asynchronous_connection_failover_", harmState},
	},
}
