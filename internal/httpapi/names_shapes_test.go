package httpapi

import (
	"encoding/json"
	"testing"
)

func TestHostedMediaIsAListOfURLs(t *testing.T) {
	in := `{"data":[{"content":{"text":"t","url":"u","media":[{"type":"photo","url":"https://a/1.jpg"},{"type":"video","url":"https://a/2.jpg","preview_url":"https://a/2p.jpg"}]}},
		{"content":{"text":"t","url":"u","media":[]}}]}`
	out := string(rewriteJSON([]byte(in), hostedNames().toHosted))
	var a struct {
		Data []struct {
			Content map[string]json.RawMessage `json:"content"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if got := string(a.Data[0].Content["media"]); got != `["https://a/1.jpg","https://a/2.jpg"]` {
		t.Errorf("media = %s, want the URLs", got)
	}
	if _, ok := a.Data[0].Content["media_items"]; !ok {
		t.Errorf("media_items missing: %s", out)
	}
	if _, ok := a.Data[1].Content["media"]; ok {
		t.Errorf("no media answers media: %s", out)
	}
}

func TestHostedDocumentMediaIsStrings(t *testing.T) {
	in := `{"components":{"schemas":{"Content":{"type":"object","required":["text","url","media"],"properties":{"text":{"type":"string"},"url":{"type":"string"},"media":{"type":"array","items":{"$ref":"#/components/schemas/Media"}}}}}}}`
	var d struct {
		Components struct {
			Schemas struct {
				Content struct {
					Required   []string `json:"required"`
					Properties map[string]struct {
						Items map[string]string `json:"items"`
					} `json:"properties"`
				} `json:"Content"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(rewriteJSON([]byte(in), hostedNames().docToHosted), &d); err != nil {
		t.Fatal(err)
	}
	c := d.Components.Schemas.Content
	if c.Properties["media"].Items["type"] != "string" || c.Properties["media_items"].Items["$ref"] != "#/components/schemas/Media" {
		t.Errorf("media = %v, media_items = %v", c.Properties["media"], c.Properties["media_items"])
	}
	for _, r := range c.Required {
		if r == "media" {
			t.Errorf("media is still required: %v", c.Required)
		}
	}
}

func TestHostedIntervalsAreNumbers(t *testing.T) {
	in := `{"data":{"engagement_credits_by_interval":[{"interval":"initial","credits":0.5,"billed_engagements_count":1},
		{"interval":"rediscovery","credits":0.25,"billed_engagements_count":2},{"interval":"day1","credits":0,"billed_engagements_count":0}]},
		"rows":[{"discovery_interval":"day5"},{"discovery_interval":"rediscovery"}]}`
	got := string(rewriteJSON([]byte(in), hostedNames().toHosted))
	want := `{"data":{"engagement_credits_by_interval":[{"billed_engagements_count":3,"credits":0.75,"interval":0},{"billed_engagements_count":0,"credits":0,"interval":1}]},"rows":[{"discovery_interval":5},{"discovery_interval":0}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The upstream cost of the two 0 entries is summed to the micro too.
	in = `{"data":{"engagement_credits_by_interval":[{"interval":"initial","credits":0,"billed_engagements_count":0,"upstream_cost_usd":"0.000301"},
		{"interval":"rediscovery","credits":0,"billed_engagements_count":0,"upstream_cost_usd":"1.999700"}]}}`
	got = string(rewriteJSON([]byte(in), hostedNames().toHosted))
	want = `{"data":{"engagement_credits_by_interval":[{"billed_engagements_count":0,"credits":0,"interval":0,"upstream_cost_usd":"2.000001"}]}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestHostedExecutionsPage(t *testing.T) {
	in := `{"message":"Executions","success":true,"data":[{"run_id":"r"}],"pagination":{"page":1,"page_size":1,"total_count":2,"total_pages":2}}`
	got := string(rewriteJSON([]byte(in), hostedExecutionsPage))
	want := `{"data":{"has_more":true,"items":[{"run_id":"r"}],"page":1,"page_size":1,"total":2},"message":"Executions","success":true}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !isExecutionsList("GET", "/v1/workflows/w1/executions") || isExecutionsList("GET", "/v1/workflows/w1/executions/r1") {
		t.Error("isExecutionsList matches the wrong paths")
	}
}

// FuzzParseMicros: what parseMicros reads, USD writes back the same.
func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"0.000000", "1.254000", "12.5", "-1.000000", "x.yyyyyy", "99999999999.999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseMicros(s)
		if err != nil {
			return
		}
		if m < 0 {
			t.Fatalf("parseMicros(%q) = %d, negative", s, m)
		}
		if back, err := parseMicros(m.USD()); err != nil || back != m {
			t.Fatalf("parseMicros(%q) = %d, and its USD %q reads back %d, %v", s, m, m.USD(), back, err)
		}
	})
}
