//! The players' rules from Markdown to HTML: CommonMark with pulldown-cmark, with
//! nothing in the result that the page's allow-list (static/rules.js) would drop.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd, html};

/// `markdown` as HTML, every heading one level lower (`##` becomes `<h3>`, as the page
/// titles the rules with an `<h2>` of its own). Raw HTML in the document is shown as
/// text, never passed through; links and images keep only their text.
pub(super) fn to_html(markdown: &str) -> String {
    let events = Parser::new_ext(markdown, Options::empty()).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => None,
        Event::Start(Tag::Link { .. } | Tag::Image { .. })
        | Event::End(TagEnd::Link | TagEnd::Image) => None,
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Some(Event::Start(Tag::Heading {
            level: lower(level),
            id,
            classes,
            attrs,
        })),
        Event::End(TagEnd::Heading(level)) => Some(Event::End(TagEnd::Heading(lower(level)))),
        other => Some(other),
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// The heading level one below `level` (`h6` stays `h6`).
fn lower(level: HeadingLevel) -> HeadingLevel {
    HeadingLevel::try_from(level as usize + 1).unwrap_or(HeadingLevel::H6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_go_one_level_down_and_emphasis_stays() {
        let html = to_html("## Set-up\n\nThe **fox** starts on *17*.\n\n- one\n- `22-15`\n");
        assert_eq!(
            html,
            "<h3>Set-up</h3>\n<p>The <strong>fox</strong> starts on <em>17</em>.</p>\n\
             <ul>\n<li>one</li>\n<li><code>22-15</code></li>\n</ul>\n"
        );
    }

    #[test]
    fn raw_html_is_text_and_links_keep_only_their_words() {
        let html = to_html(
            "<script>alert(1)</script>\n\nA <img src=x onerror=alert(1)> and \
             [a link](javascript:alert(1)) and ![a picture](x.png).\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<a"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("a link"), "{html}");
        assert!(html.contains("a picture"), "{html}");
    }
}
