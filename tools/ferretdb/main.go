// Command rumbench-ferretdb serves the MongoDB wire protocol on a loopback
// address with FerretDB 1.24 embedded (github.com/FerretDB/FerretDB/ferretdb),
// storing documents in SQLite files in a directory or in a PostgreSQL database.
//
// It exists because `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2`
// builds a binary that panics at start (build/version/version.txt is not in the
// module zip); the embeddable package does not read that file.
//
// It prints one line "listening mongodb://HOST:PORT/" on stdout once the
// listener is bound (port 0 picks a free port; with --listen-tls the line gives
// the TLS address, "?tls=true", and not the plain one) and stops cleanly on
// SIGTERM or SIGINT (exit code 0; open connections get FerretDB's 3 s grace).
//
// Authentication: the embeddable package has no setting for it. With the
// PostgreSQL backend, a client's PLAIN credentials (authMechanism=PLAIN) are
// used as the PostgreSQL user and password. SCRAM needs FerretDB's own command
// (--test-enable-new-auth --setup-*), see scripts/install-ferretdb.sh --with-cli.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/FerretDB/FerretDB/build/version"
	"github.com/FerretDB/FerretDB/ferretdb"
)

const ferretModule = "github.com/FerretDB/FerretDB"

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (port 0: a free port; empty: no plain TCP)")
	listenTLS := flag.String("listen-tls", "", "TLS address to listen on (needs --listen-tls-cert-file and --listen-tls-key-file)")
	tlsCert := flag.String("listen-tls-cert-file", "", "TLS server certificate (PEM)")
	tlsKey := flag.String("listen-tls-key-file", "", "TLS server key (PEM)")
	tlsCA := flag.String("listen-tls-ca-file", "", "TLS CA (PEM); if set, clients must present a certificate signed by it")
	sqliteDir := flag.String("sqlite-dir", "", "directory for the SQLite backend's files (created if missing)")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL URL for the PostgreSQL backend, e.g. postgres://user@127.0.0.1:5432/ferretdb")
	logLevel := flag.String("log-level", "warn", "log level: debug, info, warn, error")
	flag.Parse()

	if flag.NArg() != 0 {
		fail("unexpected arguments: %v", flag.Args())
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail("--log-level: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	conf := &ferretdb.Config{
		Logger: logger,
		Listener: ferretdb.ListenerConfig{
			TCP:         *listenAddr,
			TLS:         *listenTLS,
			TLSCertFile: *tlsCert,
			TLSKeyFile:  *tlsKey,
			TLSCAFile:   *tlsCA,
		},
	}

	switch {
	case *sqliteDir != "" && *pgURL != "":
		fail("give one of --sqlite-dir and --postgresql-url")
	case *sqliteDir != "":
		dir, err := filepath.Abs(*sqliteDir)
		if err != nil {
			fail("--sqlite-dir: %v", err)
		}
		if err = os.MkdirAll(dir, 0o755); err != nil {
			fail("--sqlite-dir: %v", err)
		}
		conf.Handler = "sqlite"
		// FerretDB wants a "file:" URI of an existing directory ending with "/".
		conf.SQLiteURL = "file:" + strings.TrimSuffix(dir, "/") + "/"
	case *pgURL != "":
		conf.Handler = "postgresql"
		conf.PostgreSQLURL = *pgURL
	default:
		fail("give --sqlite-dir or --postgresql-url")
	}

	// The embedded package reports "unknown" as FerretDB version (buildInfo's
	// ferretdbVersion, serverStatus' ferretdbVersion): fill in the module's.
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == ferretModule {
				version.Get().Version = dep.Version
			}
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	f, err := ferretdb.New(conf)
	if err != nil {
		fail("%v", err)
	}

	// New has bound the listeners; MongoDBURI waits for them, so the port is known.
	fmt.Printf("listening %s\n", f.MongoDBURI())
	_ = os.Stdout.Sync()

	// Run returns once ctx is canceled, all connections are closed (clients
	// get a few seconds to disconnect) and the backend is closed.
	if err = f.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fail("%v", err)
	}
	logger.Info("stopped")
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rumbench-ferretdb: "+format+"\n", args...)
	os.Exit(2)
}
