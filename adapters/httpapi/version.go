package httpapi

import (
	"net/http"
	"runtime/debug"
)

// ModulePath is msgkit's module, whose version Version reports also when
// msgkit is a dependency of the program.
const ModulePath = "github.com/msgkit/msgkit"

// Version is what the build information says of the running program: the
// version of its main module ("(devel)" for a build from a work tree) and
// of msgkit, the revision and time of the commit it was built from,
// whether the work tree had changes, and the Go version.
type Version struct {
	Version   string `json:"version"`
	Msgkit    string `json:"msgkit"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"goVersion"`
}

// ReadVersion reads the running program's build information; a program
// built without it (a test binary of some tools) reports "unknown".
func ReadVersion() Version {
	v := Version{Version: "unknown", Msgkit: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Version, v.GoVersion = bi.Main.Version, bi.GoVersion
	if bi.Main.Path == ModulePath {
		v.Msgkit = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == ModulePath {
			v.Msgkit = d.Version
			if d.Replace != nil {
				v.Msgkit = d.Replace.Version
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	if v.Version == "" {
		v.Version = "unknown"
	}
	if v.Msgkit == "" {
		v.Msgkit = "unknown"
	}
	return v
}

// versionHandler answers GET /version: the build information, read once.
func versionHandler() http.Handler {
	v := ReadVersion()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = WriteJSON(w, http.StatusOK, v)
	})
}
