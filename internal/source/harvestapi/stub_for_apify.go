// Package harvestapi: stub of translate.go so that the apify branch compiles on its own; the
// integrator deletes this file at merge and keeps the real package.
package harvestapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

type stubPost struct {
	ID          string `json:"id"`
	LinkedinURL string `json:"linkedinUrl"`
	Content     string `json:"content"`
	Author      struct {
		Name             string `json:"name"`
		Info             string `json:"info"`
		PublicIdentifier string `json:"publicIdentifier"`
		LinkedinURL      string `json:"linkedinUrl"`
	} `json:"author"`
	PostedAt struct {
		Timestamp int64  `json:"timestamp"`
		Date      string `json:"date"`
	} `json:"postedAt"`
}

// PostFromItem translates a HarvestAPI post item.
func PostFromItem(raw json.RawMessage) (pronet.Post, error) {
	var it stubPost
	if err := json.Unmarshal(raw, &it); err != nil {
		return pronet.Post{}, fmt.Errorf("harvestapi: post item: %w", err)
	}
	if it.ID == "" {
		return pronet.Post{}, errors.New("harvestapi: post item without id")
	}
	return pronet.Post{URN: it.ID, PostURL: it.LinkedinURL, Text: it.Content, PostedDate: it.PostedAt.Date,
		PostedDateTimestamp: it.PostedAt.Timestamp,
		Author: pronet.PostAuthor{FirstName: it.Author.Name, Headline: it.Author.Info,
			Username: it.Author.PublicIdentifier, URL: it.Author.LinkedinURL}}, nil
}

// CommentFromItem translates a HarvestAPI comment item.
func CommentFromItem(raw json.RawMessage) (pronet.Comment, error) {
	var it struct {
		ID         string `json:"id"`
		Commentary string `json:"commentary"`
		Actor      struct {
			Name string `json:"name"`
		} `json:"actor"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		return pronet.Comment{}, fmt.Errorf("harvestapi: comment item: %w", err)
	}
	if it.ID == "" {
		return pronet.Comment{}, errors.New("harvestapi: comment item without id")
	}
	return pronet.Comment{URN: it.ID, Text: it.Commentary, Author: pronet.CommentAuthor{Name: it.Actor.Name}}, nil
}

// ReactorFromItem translates a HarvestAPI reaction item.
func ReactorFromItem(raw json.RawMessage) (pronet.Reactor, error) {
	var it struct {
		ReactionType string `json:"reactionType"`
		Actor        struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			LinkedinURL string `json:"linkedinUrl"`
			Position    string `json:"position"`
		} `json:"actor"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		return pronet.Reactor{}, fmt.Errorf("harvestapi: reaction item: %w", err)
	}
	if it.Actor.ID == "" && it.Actor.LinkedinURL == "" {
		return pronet.Reactor{}, errors.New("harvestapi: reaction item without actor")
	}
	return pronet.Reactor{URN: it.Actor.ID, FullName: it.Actor.Name, Headline: it.Actor.Position,
		ProfileURL: it.Actor.LinkedinURL, ReactionType: it.ReactionType}, nil
}

// ProfileFromItem translates a HarvestAPI profile item.
func ProfileFromItem(raw json.RawMessage) (pronet.Profile, error) {
	var it struct {
		ID               string `json:"id"`
		PublicIdentifier string `json:"publicIdentifier"`
		FirstName        string `json:"firstName"`
		LastName         string `json:"lastName"`
		Headline         string `json:"headline"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile item: %w", err)
	}
	if it.ID == "" && it.PublicIdentifier == "" {
		return pronet.Profile{}, errors.New("harvestapi: profile item without id")
	}
	return pronet.Profile{URN: it.ID, Username: it.PublicIdentifier, FirstName: it.FirstName,
		LastName: it.LastName, Headline: it.Headline}, nil
}
