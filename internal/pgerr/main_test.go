package pgerr

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
