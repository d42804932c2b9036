package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// modelsTimeout bounds ListModels.
const modelsTimeout = 10 * time.Second

// ListModels asks the endpoint of cfg which models it serves: GET
// BaseURL/models, the OpenAI API's list (Ollama, vLLM, llama.cpp, LM
// Studio and OpenRouter answer it too), sent with the key, organization,
// project and headers of cfg. It returns the models' ids, sorted, or why
// the server gave none.
func ListModels(ctx context.Context, cfg OpenAIConfig) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	url := strings.TrimSuffix(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	if cfg.Organization != "" {
		req.Header.Set("OpenAI-Organization", cfg.Organization)
	}
	if cfg.Project != "" {
		req.Header.Set("OpenAI-Project", cfg.Project)
	}
	for k, v := range cfg.Headers {
		req.Header.Set(k, v)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list models: %s", shortReason(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list models: %s answered %s", url, res.Status)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 16<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("list models: %s: %w", url, err)
	}
	var ids []string
	for _, m := range body.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
