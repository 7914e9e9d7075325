package ledger

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL. A fleet's daemons share one database: every row of every
// host is in one operations table, whose unique id refuses an id any
// daemon used before (a second daemon's reuse is a *DuplicateError naming
// the original, whoever reserved it), and List and Get read every host's
// rows, each with its host.
//
// The driver is pgx through database/sql (package pgx/v5/stdlib): the
// SQLite backend is database/sql too, so both run the same queries, the
// same scanning and the same closed-ledger guard (sqlStore), and differ
// only in their dialect, their settings and their migrations.
//
// Durability. Every connection starts with synchronous_commit=on, set in
// its startup message so that neither the URL, the role's nor the
// database's default can turn it off: a commit returns once its WAL
// record is flushed to the server's disk (and to its synchronous
// standbys, if it has any), so a reservation is durable before Reserve
// returns and before the write's input is dispatched, as on SQLite. Open
// checks the setting took.

// pgConns bounds one ledger's connections to the server: a write holds one
// for a millisecond or two, so four serve thousands of writes a second,
// and a fleet of N daemons holds at most 4N of the server's connections.
const pgConns = 4

// pgConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout: a server that does not answer fails Open (and then
// each write, refused undispatched) rather than holding them for the
// operating system's minutes.
const pgConnectTimeout = 10 * time.Second

// Advisory locks (pg_advisory_xact_lock, held until the transaction
// ends). pgMigrationLock serializes migrations, so two daemons starting
// at once on an empty database do not both create the schema;
// pgHostLockClass with a hash of the host identity serializes one host's
// recoveries. The one-key and two-key forms are apart in PostgreSQL's
// lock space.
const (
	pgMigrationLock int64 = 0x6c6f75706501 // "loupe", 1
	pgHostLockClass int32 = 0x6c6f7570     // "loup"
)

//go:embed schema/pg/*.sql
var pgSchema embed.FS

// pgDialect is PostgreSQL's spelling.
var pgDialect = dialect{
	bind:     dollarBind,
	greatest: "GREATEST",
	hostOnly: true,
	lockHost: "SELECT pg_advisory_xact_lock(" + strconv.Itoa(int(pgHostLockClass)) + ", hashtext(?))",
}

// openPostgres opens the ledger in the database target names. No error
// it returns holds the URL's password.
func openPostgres(ctx context.Context, target, host string) (*sqlStore, error) {
	secrets := urlSecrets(target)
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		err = hideSecrets(err, secrets)
		if secrets == nil { // where the password is in it is not known
			err = errors.New("it does not parse as a URL")
		}
		return nil, fmt.Errorf("ledger: cannot use %s as a PostgreSQL URL: %w", Redact(target), err)
	}
	cfg.RuntimeParams["synchronous_commit"] = "on"
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "loupe"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(pgConns)
	db.SetMaxIdleConns(pgConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	l := &sqlStore{db: db, d: pgDialect, self: selfProc(), host: host, where: Redact(target)}
	if err := l.startPostgres(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger: open %s: %w", Redact(target), hideSecrets(err, secrets))
	}
	return l, nil
}

// startPostgres brings the schema up to date, checks the durability
// setting and begins this generation.
func (l *sqlStore) startPostgres(ctx context.Context) error {
	if err := migratePostgres(ctx, l.db); err != nil {
		return err
	}
	var sc string
	if err := l.db.QueryRowContext(ctx, "SHOW synchronous_commit").Scan(&sc); err != nil {
		return err
	}
	if sc != "on" {
		return fmt.Errorf("synchronous_commit is %q, not on: a reservation would not be durable before its write is sent", sc)
	}
	return l.begin(ctx)
}

// migratePostgres brings the schema to the newest version this loupe
// knows: schema/pg/NNN_*.sql is version NNN; schema_version holds a row
// per version applied. It runs in one transaction under an advisory lock:
// a daemon starting while another migrates waits, then finds the schema
// made, and a failed step leaves the database as it was.
func migratePostgres(ctx context.Context, db *sql.DB) error {
	steps, err := migrations(pgSchema, "schema/pg")
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", pgMigrationLock); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY,
		applied BIGINT  NOT NULL
	)`); err != nil {
		return err
	}
	var v int
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&v); err != nil {
		return err
	}
	if v > len(steps) {
		return fmt.Errorf("its schema version is %d, newer than this loupe knows (%d): use a newer loupe", v, len(steps))
	}
	if v == len(steps) {
		return nil
	}
	for i := v; i < len(steps); i++ {
		if _, err := tx.ExecContext(ctx, steps[i]); err != nil {
			return fmt.Errorf("schema version %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version, applied) VALUES ($1, $2)",
			i+1, time.Now().UnixNano()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Redact is target as it may be logged or shown: a PostgreSQL URL with
// its password — in its user information or in a parameter such as
// password or sslpassword — replaced by xxxxx. A PostgreSQL URL that does
// not parse shows its scheme alone, as where a password sits in it is not
// known. A SQLite path is shown as it is.
func Redact(target string) string {
	if !IsPostgres(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		scheme, _, _ := strings.Cut(target, "://")
		return scheme + "://(a URL that does not parse)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	redacted := false
	for k := range q {
		if strings.Contains(strings.ToLower(k), "password") {
			q.Set(k, "xxxxx")
			redacted = true
		}
	}
	if redacted {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// urlSecrets are the passwords in a PostgreSQL URL (none: an empty,
// non-nil slice), or nil when it does not parse.
func urlSecrets(target string) []string {
	u, err := url.Parse(target)
	if err != nil {
		return nil
	}
	out := []string{}
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	for k, vs := range u.Query() {
		if strings.Contains(strings.ToLower(k), "password") {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// hideSecrets is err, or, should its message hold one of the secrets
// (the driver's messages are not meant to, but that is theirs to keep),
// that message with each replaced by xxxxx.
func hideSecrets(err error, secrets []string) error {
	msg := err.Error()
	hidden := msg
	for _, s := range secrets {
		hidden = strings.ReplaceAll(hidden, s, "xxxxx")
	}
	if hidden == msg {
		return err
	}
	return errors.New(hidden)
}
