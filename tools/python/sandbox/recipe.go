package sandbox

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"strings"
)

// recipe holds the image recipes: recipe/Dockerfile with its
// requirements.txt (machines with internet) and recipe/offline.sh
// (debootstrap from the machine's apt mirror).
//
//go:embed recipe/Dockerfile recipe/requirements.txt recipe/offline.sh
var recipe embed.FS

// Recipe kinds.
const (
	KindDockerfile = "dockerfile"
	KindOffline    = "offline"
)

func recipeFile(name string) []byte {
	b, err := recipe.ReadFile("recipe/" + name)
	if err != nil {
		panic("sandbox: embedded recipe/" + name + " missing: " + err.Error()) // a build defect
	}
	return b
}

// RecipeHash identifies the recipe of kind (KindDockerfile or
// KindOffline) as embedded in this Loupe: an image labelled with another
// hash was built by another version and is reported stale.
func RecipeHash(kind string) string {
	h := sha256.New()
	h.Write([]byte(kind + "\n"))
	switch kind {
	case KindDockerfile:
		h.Write(recipeFile("Dockerfile"))
		h.Write(recipeFile("requirements.txt"))
	case KindOffline:
		h.Write(recipeFile("offline.sh"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// pinnedVersions is the Dockerfile recipe's versions label, from
// requirements.txt: "python=3.12 numpy=2.1.3 …".
func pinnedVersions() string {
	out := []string{"python=3.12"}
	for _, line := range strings.Split(string(recipeFile("requirements.txt")), "\n") {
		name, ver, ok := strings.Cut(strings.TrimSpace(line), "==")
		if ok {
			out = append(out, name+"="+ver)
		}
	}
	return strings.Join(out, " ")
}
