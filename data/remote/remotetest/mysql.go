package remotetest

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/loupeapp/loupe/data/remote"
)

// MySQLProfile is a connection profile for the test MariaDB server (env
// from Servers) as role ("RO" or "ADMIN") on database, and role's
// password.
func MySQLProfile(t testing.TB, env map[string]string, role, database string) (remote.Profile, string) {
	t.Helper()
	port, err := strconv.Atoi(env["LOUPE_MYSQL_PORT"])
	if err != nil {
		t.Fatalf("port: %v", err)
	}
	return remote.Profile{Name: "chinook-mysql", Kind: remote.MySQL, Host: env["LOUPE_MYSQL_HOST"], Port: port,
		Database: database, User: env["LOUPE_MYSQL_"+role+"_USER"], TLS: remote.TLSPrefer}, env["LOUPE_MYSQL_"+role+"_PASSWORD"]
}

// MySQLScratch creates a database of its own, named prefix and a stamp,
// on the test MariaDB server (env from Servers), so that a test's tables
// never show in the shared Chinook database. It returns an admin pool
// (plain database/sql, not Loupe's connector) and the database's name;
// t's cleanup drops the database, then closes the pool.
func MySQLScratch(t testing.TB, env map[string]string, prefix string) (*sql.DB, string) {
	t.Helper()
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd = env["LOUPE_MYSQL_ADMIN_USER"], env["LOUPE_MYSQL_ADMIN_PASSWORD"]
	cfg.Net, cfg.Addr = "tcp", env["LOUPE_MYSQL_HOST"]+":"+env["LOUPE_MYSQL_PORT"]
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	admin := sql.OpenDB(conn)
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano())
	if _, err := admin.ExecContext(context.Background(), "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name)
		admin.Close()
	})
	return admin, name
}
