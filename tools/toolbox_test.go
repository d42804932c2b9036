package tools_test

import (
	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/tools"
)

// The Registry is the agent's Toolbox.
var _ agent.Toolbox = (*tools.Registry)(nil)
