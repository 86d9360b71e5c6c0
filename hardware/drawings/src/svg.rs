//! A tiny SVG writer: only `rect`, `line`, `circle`, `text` and `path`, one element per
//! line, numbers printed the same way every time so the output is byte-for-byte stable.

use std::fmt::Write as _;

/// Formats a coordinate: integers without a decimal point, anything else with one decimal.
pub fn num(v: f64) -> String {
    let tenths = (v * 10.0).round();
    if tenths % 10.0 == 0.0 {
        format!("{}", (tenths / 10.0) as i64)
    } else {
        format!("{:.1}", tenths / 10.0)
    }
}

/// Escapes the characters XML gives a meaning to.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Horizontal alignment of a text on its x coordinate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// How a text looks.
#[derive(Debug, Clone, Copy)]
pub struct Font {
    pub size: f64,
    pub bold: bool,
    pub color: &'static str,
    pub anchor: Anchor,
}

impl Font {
    pub const fn new(size: f64) -> Font {
        Font {
            size,
            bold: false,
            color: "#222222",
            anchor: Anchor::Start,
        }
    }
    pub const fn bold(self) -> Font {
        Font { bold: true, ..self }
    }
    pub const fn color(self, color: &'static str) -> Font {
        Font { color, ..self }
    }
    pub const fn anchor(self, anchor: Anchor) -> Font {
        Font { anchor, ..self }
    }
    pub const fn middle(self) -> Font {
        self.anchor(Anchor::Middle)
    }
    pub const fn end(self) -> Font {
        self.anchor(Anchor::End)
    }
    /// A rough width of `s` in this font (sans-serif averages a little over half the size
    /// per character), for laying out boxes behind labels.
    pub fn width(&self, s: &str) -> f64 {
        let per = if self.bold { 0.65 } else { 0.58 };
        s.chars().count() as f64 * self.size * per
    }
}

/// An SVG document being written.
#[derive(Debug)]
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// A document of the given size with a white background.
    pub fn new(width: f64, height: f64) -> Svg {
        let mut svg = Svg {
            width,
            height,
            body: String::new(),
        };
        svg.rect(0.0, 0.0, width, height, r##"fill="#ffffff""##);
        svg
    }

    /// A rectangle; `attrs` are extra attributes (fill, stroke, rx...).
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" {attrs}/>"#,
            num(x),
            num(y),
            num(w),
            num(h)
        );
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {attrs}/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
    }

    /// A circle.
    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{}" cy="{}" r="{}" {attrs}/>"#,
            num(cx),
            num(cy),
            num(r)
        );
    }

    /// A path with the given `d`.
    pub fn path(&mut self, d: &str, attrs: &str) {
        let _ = writeln!(self.body, r#"<path d="{d}" {attrs}/>"#);
    }

    /// One line of text with its baseline at `y`.
    pub fn text(&mut self, x: f64, y: f64, font: Font, s: &str) {
        let weight = if font.bold {
            r#" font-weight="bold""#
        } else {
            ""
        };
        let anchor = match font.anchor {
            Anchor::Start => String::new(),
            a => format!(r#" text-anchor="{}""#, a.name()),
        };
        let _ = writeln!(
            self.body,
            r#"<text x="{}" y="{}" font-family="sans-serif" font-size="{}" fill="{}"{weight}{anchor}>{}</text>"#,
            num(x),
            num(y),
            num(font.size),
            font.color,
            escape(s)
        );
    }

    /// Several lines of text, `leading` apart, the first baseline at `y`.
    pub fn lines(&mut self, x: f64, y: f64, leading: f64, font: Font, lines: &[&str]) {
        for (i, s) in lines.iter().enumerate() {
            self.text(x, y + leading * i as f64, font, s);
        }
    }

    /// A wire through `points` (horizontal and vertical segments) that hops over the wires
    /// crossing it at `crossings`: a small half circle, upwards on a horizontal segment,
    /// to the right on a vertical one. Wires that join get a [`Svg::joint`] instead.
    pub fn wire(&mut self, points: &[(f64, f64)], crossings: &[(f64, f64)], attrs: &str) {
        const R: f64 = 6.0;
        let Some(&(x0, y0)) = points.first() else {
            return;
        };
        let mut d = format!("M {} {}", num(x0), num(y0));
        for pair in points.windows(2) {
            let ((ax, ay), (bx, by)) = (pair[0], pair[1]);
            let vertical = ax == bx;
            let (a, b) = if vertical { (ay, by) } else { (ax, bx) };
            let dir = if b >= a { 1.0 } else { -1.0 };
            let mut hops: Vec<f64> = crossings
                .iter()
                .filter(|&&(cx, cy)| {
                    let (along, across, fixed) = if vertical { (cy, cx, ax) } else { (cx, cy, ay) };
                    across == fixed && (along - a) * dir > R && (b - along) * dir > R
                })
                .map(|&(cx, cy)| if vertical { cy } else { cx })
                .collect();
            hops.sort_by(|p, q| (p * dir).total_cmp(&(q * dir)));
            let sweep = if dir > 0.0 { 1 } else { 0 };
            for h in hops {
                let (before, after) = (h - R * dir, h + R * dir);
                let (p, q) = if vertical {
                    ((ax, before), (ax, after))
                } else {
                    ((before, ay), (after, ay))
                };
                d.push_str(&format!(
                    " L {} {} A {r} {r} 0 0 {sweep} {} {}",
                    num(p.0),
                    num(p.1),
                    num(q.0),
                    num(q.1),
                    r = num(R)
                ));
            }
            d.push_str(&format!(" L {} {}", num(bx), num(by)));
        }
        self.path(&d, attrs);
    }

    /// A filled dot marking a joint between wires.
    pub fn joint(&mut self, x: f64, y: f64, color: &str) {
        self.circle(x, y, 3.5, &format!(r#"fill="{color}""#));
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n{}</svg>\n",
            self.body,
            w = num(self.width),
            h = num(self.height),
        )
    }
}

/// A stroke attribute string.
pub fn stroke(color: &str, width: f64) -> String {
    format!(
        r#"fill="none" stroke="{color}" stroke-width="{}" stroke-linecap="round""#,
        num(width)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_printed_stably() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(-2.0), "-2");
        assert_eq!(num(2.25), "2.3");
        assert_eq!(num(0.04), "0");
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
