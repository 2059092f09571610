package pgstore

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
)

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return fsys
}

func TestLoadMigrations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		want    []migration
		wantErr string
	}{
		{
			name: "sorted by version, other files ignored",
			files: map[string]string{
				"0010_ten.sql": "SELECT 10", "0002_two_words.sql": "SELECT 2", "0001_one.sql": "SELECT 1",
				"README.md": "notes",
			},
			want: []migration{{1, "one", "SELECT 1"}, {2, "two_words", "SELECT 2"}, {10, "ten", "SELECT 10"}},
		},
		{name: "empty", files: map[string]string{}, want: nil},
		{name: "no name", files: map[string]string{"0001.sql": ""}, wantErr: "0001.sql"},
		{name: "empty name", files: map[string]string{"0001_.sql": ""}, wantErr: "0001_.sql"},
		{name: "short version", files: map[string]string{"01_x.sql": ""}, wantErr: "01_x.sql"},
		{name: "not a number", files: map[string]string{"00a1_x.sql": ""}, wantErr: "00a1_x.sql"},
		{name: "version zero", files: map[string]string{"0000_x.sql": ""}, wantErr: "positive"},
		{name: "version twice", files: map[string]string{"0001_a.sql": "", "00001_b.sql": ""}, wantErr: "used twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loadMigrations(mapFS(tc.files))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(migration{})); diff != "" {
				t.Errorf("migrations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEmbeddedMigrationsLoad(t *testing.T) {
	t.Parallel()
	migs, err := loadMigrations(embeddedMigrations())
	if err != nil {
		t.Fatal(err)
	}
	if len(migs) == 0 || migs[0].version != 1 || migs[0].name != "auth" {
		t.Fatalf("embedded migrations start with %+v, want 0001_auth", migs)
	}
	for i, m := range migs {
		if m.version != i+1 {
			t.Errorf("migration %s has version %d, want %d: versions have no gaps", m.name, m.version, i+1)
		}
	}
}

type appliedRow struct {
	Version   int
	Name      string
	AppliedAt time.Time
}

// appliedMigrations reads schema_migrations of schema.
func appliedMigrations(t *testing.T, dsn, schema string) []appliedRow {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(),
		"SELECT version, name, applied_at FROM "+pgx.Identifier{schema, "schema_migrations"}.Sanitize()+" ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[appliedRow])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func versionsOf(rows []appliedRow) []int {
	var vs []int
	for _, r := range rows {
		vs = append(vs, r.Version)
	}
	return vs
}

// queryInt runs a query returning one integer on a connection of its own.
func queryInt(t *testing.T, dsn, sql string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(t.Context(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// openConcurrently calls open n times at once on the same schema and
// returns the errors.
// openConcurrently opens n stores of schema at once and returns their
// errors and how many of them found the schema fresh.
func openConcurrently(t *testing.T, n int, dsn, schema string, fsys fs.FS) (errs []error, fresh int) {
	t.Helper()
	errs = make([]error, n)
	var fresher atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := open(t.Context(), dsn, Options{Schema: schema}, fsys)
			if err == nil {
				if s.Fresh() {
					fresher.Add(1)
				}
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errs, int(fresher.Load())
}

func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	const replicas = 8
	t.Run("embedded", func(t *testing.T) {
		dsn, schema := newTestSchema(t)
		errs, fresh := openConcurrently(t, replicas, dsn, schema, embeddedMigrations())
		for i, err := range errs {
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		}
		if fresh != 1 {
			t.Errorf("%d replicas found the empty schema fresh, want exactly 1", fresh)
		}
		migs, err := loadMigrations(embeddedMigrations())
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, m := range migs {
			want = append(want, m.version)
		}
		if diff := cmp.Diff(want, versionsOf(appliedMigrations(t, dsn, schema))); diff != "" {
			t.Errorf("applied versions (-want +got):\n%s", diff)
		}
	})
	t.Run("each migration runs once", func(t *testing.T) {
		dsn, schema := newTestSchema(t)
		// Unlike CREATE TABLE, an INSERT does not fail when run twice,
		// so the row count tells how often the migration ran.
		fsys := mapFS(map[string]string{
			"0001_runs.sql":  "CREATE TABLE runs (migration int NOT NULL)",
			"0002_count.sql": "INSERT INTO runs VALUES (2)",
			"0003_count.sql": "INSERT INTO runs VALUES (3)",
		})
		errs, _ := openConcurrently(t, replicas, dsn, schema, fsys)
		for i, err := range errs {
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		}
		q := "SELECT count(*) FROM " + pgx.Identifier{schema, "runs"}.Sanitize()
		if n := queryInt(t, dsn, q); n != 2 {
			t.Errorf("%d migration runs recorded, want 2", n)
		}
		if diff := cmp.Diff([]int{1, 2, 3}, versionsOf(appliedMigrations(t, dsn, schema))); diff != "" {
			t.Errorf("applied versions (-want +got):\n%s", diff)
		}
		// Reopening applies nothing: the rows and their times stay.
		before := appliedMigrations(t, dsn, schema)
		s, err := open(t.Context(), dsn, Options{Schema: schema}, fsys)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if diff := cmp.Diff(before, appliedMigrations(t, dsn, schema)); diff != "" {
			t.Errorf("reopen changed schema_migrations (-before +after):\n%s", diff)
		}
		if n := queryInt(t, dsn, q); n != 2 {
			t.Errorf("after reopen %d migration runs recorded, want 2", n)
		}
	})
}

func TestReopenIsNoop(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	first := openTestDB(t, dsn, Options{Schema: schema})
	first.Close()
	before := appliedMigrations(t, dsn, schema)
	if len(before) == 0 {
		t.Fatal("Open recorded no migration")
	}
	if !first.Fresh() {
		t.Error("the Open that made the tables does not say Fresh")
	}
	if openTestDB(t, dsn, Options{Schema: schema}).Fresh() {
		t.Error("a reopen says Fresh")
	}
	if diff := cmp.Diff(before, appliedMigrations(t, dsn, schema)); diff != "" {
		t.Errorf("reopen changed schema_migrations (-before +after):\n%s", diff)
	}
}

func TestOpenFailingMigration(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	good := "CREATE TABLE first (id int PRIMARY KEY)"
	bad := mapFS(map[string]string{
		"0001_first.sql": good,
		// The first statement succeeds; the second fails, so the
		// transaction must take the first back.
		"0002_broken.sql": "CREATE TABLE half_done (id int);\nSELEC 'secret detail' FROM nowhere;",
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := open(ctx, dsn, Options{Schema: schema}, bad)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded with a broken migration")
	}
	if got := msgkit.KindOf(err); got != msgkit.Internal {
		t.Errorf("kind %v, want internal", got)
	}
	if got := msgkit.CodeOf(err); got != CodeMigrate {
		t.Errorf("code %q, want %q", got, CodeMigrate)
	}
	if merr, ok := errors.AsType[*msgkit.Error](err); !ok || strings.Contains(merr.Message, "SELEC") || strings.Contains(merr.Message, "secret") {
		t.Errorf("error %v: want a *msgkit.Error whose message shows no SQL", err)
	}
	if !strings.Contains(err.Error(), "SQLSTATE 42601") {
		t.Errorf("the cause is lost: %v", err)
	}
	if diff := cmp.Diff([]int{1}, versionsOf(appliedMigrations(t, dsn, schema))); diff != "" {
		t.Errorf("applied versions (-want +got):\n%s", diff)
	}
	q := "SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema + "' AND tablename = 'half_done'"
	if n := queryInt(t, dsn, q); n != 0 {
		t.Error("the failed migration left a table behind")
	}

	// The lock was released: a fixed build opens at once and applies the rest.
	fixed := mapFS(map[string]string{"0001_first.sql": good, "0002_broken.sql": "CREATE TABLE half_done (id int)"})
	s, err = open(ctx, dsn, Options{Schema: schema}, fixed)
	if err != nil {
		t.Fatalf("Open after fixing the migration: %v", err)
	}
	s.Close()
	if diff := cmp.Diff([]int{1, 2}, versionsOf(appliedMigrations(t, dsn, schema))); diff != "" {
		t.Errorf("applied versions (-want +got):\n%s", diff)
	}
}

func TestOpenRenamedMigration(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	s, err := open(t.Context(), dsn, Options{Schema: schema}, mapFS(map[string]string{"0001_first.sql": "SELECT 1"}))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = open(t.Context(), dsn, Options{Schema: schema}, mapFS(map[string]string{"0001_other.sql": "SELECT 1"}))
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a migration recorded under another name")
	}
	if msgkit.CodeOf(err) != CodeMigrate {
		t.Errorf("error %v, want code %s", err, CodeMigrate)
	}
	// A version the build does not know (a newer replica ran first) is fine.
	s, err = open(t.Context(), dsn, Options{Schema: schema}, mapFS(map[string]string{}))
	if err != nil {
		t.Fatalf("Open refused a database with a newer migration: %v", err)
	}
	s.Close()
}

func TestOpenInvalidMigrationFiles(t *testing.T) {
	t.Parallel()
	// Refused before any connection is made, so no database is needed.
	_, err := open(t.Context(), "postgres://127.0.0.1:1/none", Options{}, mapFS(map[string]string{"1_x.sql": ""}))
	if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeMigrate {
		t.Fatalf("error %v, want internal %s", err, CodeMigrate)
	}
}
