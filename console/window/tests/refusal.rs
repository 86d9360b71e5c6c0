//! The window's own refusal, driven through the AccessKit tree: it says why and closes on
//! its button, Enter or Escape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use kriegspiel_window::refusal::Refusal;

const WHY: &str = "journal /srv/club.sqlite is in use by another console (kriegspiel-console, pid 4321); stop it first, or give --journal another file";

fn harness() -> Harness<'static, Refusal> {
    Harness::builder()
        .with_size(egui::vec2(760.0, 260.0))
        .build_ui_state(|ui, r: &mut Refusal| r.show(ui), Refusal::new(WHY))
}

#[test]
fn the_refusal_says_why_and_closes_on_its_button() {
    let mut h = harness();
    h.run();
    h.get_by_label(WHY);
    h.get_by_label("The console did not start");
    assert!(!h.state().closed());
    h.get_by_role_and_label(Role::Button, "Close").click();
    h.run();
    assert!(h.state().closed());
}

#[test]
fn the_refusal_closes_on_enter_or_escape() {
    for key in [egui::Key::Enter, egui::Key::Escape] {
        let mut h = harness();
        h.run();
        assert!(!h.state().closed());
        h.key_press(key);
        h.run();
        assert!(h.state().closed(), "{key:?}");
    }
}
