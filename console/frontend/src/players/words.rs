//! The players' channel's own words (greetings, refusals, help), in the table's language.

use kriegspiel_hall::TableNo;
use kriegspiel_referee::shakmaty::{Color, Role, Square};
use kriegspiel_referee::{Lang, RuleSet};
use kriegspiel_table::role_name;

use super::limits::PER_SECOND;

/// Squares in a list, the last after `or`: "b1 or f3", "a1, c1 or e1".
fn squares(list: &[Square], or: &str) -> String {
    let names: Vec<String> = list.iter().map(ToString::to_string).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} {or} {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Words of the players' channel itself, in the table's language.
pub(super) fn say(lang: Lang, what: Said<'_>) -> String {
    match (what, lang) {
        (Said::Connected(t, c), Lang::En) => {
            format!("Connected to table {t} as {c}. Type help for the commands.")
        }
        (Said::Connected(t, c), Lang::Fr) => format!(
            "Connecté à la table {t} ({}). Tapez help pour les commandes.",
            color_word(c, lang)
        ),
        (Said::Connected(t, c), Lang::Ru) => format!(
            "Подключено к столу {t} ({}). Команды: help.",
            color_word(c, lang)
        ),
        (Said::NotUnderstood(s), Lang::En) => {
            format!("Not understood: {s}. A try is its two squares, as e2e4, or as chess players write it, as Nf3; type help for the commands.")
        }
        (Said::NotUnderstood(s), Lang::Fr) => format!("Commande inconnue : {s}. Un coup s'écrit avec ses deux cases, comme e2e4, ou en notation algébrique, comme Nf3 ; tapez help."),
        (Said::NotUnderstood(s), Lang::Ru) => format!("Непонятно: {s}. Ход пишется двумя полями, как e2e4, или алгебраической записью, как Nf3; наберите help."),
        (Said::NoSuchMan(r, sq), Lang::En) => format!("You have no {} on {sq}.", role_name(r, lang)),
        (Said::NoSuchMan(r, sq), Lang::Fr) => {
            format!("Vous n'avez pas de {} en {sq}.", role_name(r, lang))
        }
        (Said::NoSuchMan(r, sq), Lang::Ru) => {
            format!("На поле {sq} нет вашей фигуры: {}.", role_name(r, lang))
        }
        (Said::NoManGoes(r, sq), Lang::En) => format!("No {} of yours can go to {sq}.", role_name(r, lang)),
        (Said::NoManGoes(r, sq), Lang::Fr) => format!("Aucune de vos pièces ({}) ne peut aller en {sq}.", role_name(r, lang)),
        (Said::NoManGoes(r, sq), Lang::Ru) => format!("Ни одна ваша фигура ({}) не может пойти на {sq}.", role_name(r, lang)),
        (Said::Which(r, from), Lang::En) => format!("Which {}: {}? Type the try as its two squares.", role_name(r, lang), squares(from, "or")),
        (Said::Which(r, from), Lang::Fr) => format!("Quelle pièce ({}) : {} ? Tapez le coup avec ses deux cases.", role_name(r, lang), squares(from, "ou")),
        (Said::Which(r, from), Lang::Ru) => format!("Какая фигура ({}): {}? Наберите ход двумя полями.", role_name(r, lang), squares(from, "или")),
        (Said::MyMen(list), Lang::En) => format!("Your men: {list}."),
        (Said::MyMen(list), Lang::Fr) => format!("Vos pièces : {list}."),
        (Said::MyMen(list), Lang::Ru) => format!("Ваши фигуры: {list}."),
        (Said::NothingYet, Lang::En) => "Nothing has been said to you yet.".to_owned(),
        (Said::NothingYet, Lang::Fr) => "Rien ne vous a encore été annoncé.".to_owned(),
        (Said::NothingYet, Lang::Ru) => "Вам пока ничего не сообщалось.".to_owned(),
        (Said::Help(rules), lang) => help(rules, lang),
        (Said::Turn(Turn::Yours), Lang::En) => "Your move.".to_owned(),
        (Said::Turn(Turn::Yours), Lang::Fr) => "À vous de jouer.".to_owned(),
        (Said::Turn(Turn::Yours), Lang::Ru) => "Ваш ход.".to_owned(),
        (Said::Turn(Turn::Theirs), Lang::En) => "Your opponent's move.".to_owned(),
        (Said::Turn(Turn::Theirs), Lang::Fr) => "À votre adversaire de jouer.".to_owned(),
        (Said::Turn(Turn::Theirs), Lang::Ru) => "Ход соперника.".to_owned(),
        (Said::Turn(Turn::Over), Lang::En) => "The game is over.".to_owned(),
        (Said::Turn(Turn::Over), Lang::Fr) => "La partie est terminée.".to_owned(),
        (Said::Turn(Turn::Over), Lang::Ru) => "Партия окончена.".to_owned(),
        (Said::TooFast(s), Lang::En) => format!("Too many commands: at most {PER_SECOND} a second. Not taken: {s}."),
        (Said::TooFast(s), Lang::Fr) => format!("Trop de commandes : au plus {PER_SECOND} par seconde. Non prise : {s}."),
        (Said::TooFast(s), Lang::Ru) => format!("Слишком много команд: не больше {PER_SECOND} в секунду. Не принято: {s}."),
        (Said::NotTaken(why), Lang::En) => format!("That line was not taken: {why}."),
        (Said::NotTaken(why), Lang::Fr) => format!("Ligne non prise : {why}."),
        (Said::NotTaken(why), Lang::Ru) => format!("Строка не принята: {why}."),
        (Said::WrongCode(t, c), Lang::En) => format!("wrong seat code for table {t} {c}; the arbiter has the right one"),
        (Said::WrongCode(t, c), Lang::Fr) => format!("code de place erroné pour la table {t} ({}) ; l'arbitre a le bon", color_word(c, lang)),
        (Said::WrongCode(t, c), Lang::Ru) => format!("неверный код места: стол {t} ({}); верный код у арбитра", color_word(c, lang)),
        (Said::TooManyWrong, Lang::En) => "too many wrong seat codes; wait a minute, or ask the arbiter".to_owned(),
        (Said::TooManyWrong, Lang::Fr) => "trop de codes erronés ; attendez une minute ou demandez à l'arbitre".to_owned(),
        (Said::TooManyWrong, Lang::Ru) => "слишком много неверных кодов; подождите минуту или обратитесь к арбитру".to_owned(),
        (Said::Taken(t, c), Lang::En) => format!("table {t} {c} is taken by another terminal; if it is not yours, ask the arbiter to release the seat"),
        (Said::Taken(t, c), Lang::Fr) => format!("la place table {t} ({}) est prise par un autre terminal ; si ce n'est pas le vôtre, demandez à l'arbitre de la libérer", color_word(c, lang)),
        (Said::Taken(t, c), Lang::Ru) => format!("место стол {t} ({}) занято другим терминалом; если это не ваш, попросите арбитра освободить место", color_word(c, lang)),
        (Said::NotReading, Lang::En) => "your terminal did not read its messages; reconnect, then type repeat".to_owned(),
        (Said::NotReading, Lang::Fr) => "votre terminal ne lisait pas ses messages ; reconnectez-vous, puis tapez repeat".to_owned(),
        (Said::NotReading, Lang::Ru) => "ваш терминал не читал сообщения; подключитесь снова и наберите repeat".to_owned(),
        (Said::Released, Lang::En) => "error: the arbiter has released your seat; your game is kept: ask the arbiter, then start the terminal again with your seat code or seat file".to_owned(),
        (Said::Released, Lang::Fr) => "error: l'arbitre a libéré votre place ; votre partie est gardée : demandez à l'arbitre, puis relancez le terminal avec votre code ou fichier de place".to_owned(),
        (Said::Released, Lang::Ru) => "error: арбитр освободил ваше место; партия сохранена: обратитесь к арбитру, затем снова запустите терминал с кодом или файлом места".to_owned(),
        (Said::Replaced, Lang::En) => "error: this seat was taken by another terminal with the same seat file; this one is closed".to_owned(),
        (Said::Replaced, Lang::Fr) => "error: un autre terminal a pris cette place avec le même fichier de place ; celui-ci est fermé".to_owned(),
        (Said::Replaced, Lang::Ru) => "error: это место занял другой терминал с тем же файлом места; этот закрыт".to_owned(),
        (Said::Stopped, Lang::En) => "The console has stopped. Your game is kept and goes on when it runs again: connect then.".to_owned(),
        (Said::Stopped, Lang::Fr) => "La console s'est arrêtée. Votre partie est gardée et reprend quand elle repart : reconnectez-vous alors.".to_owned(),
        (Said::Stopped, Lang::Ru) => "Консоль остановлена. Ваша партия сохранена и продолжится, когда консоль снова запустят: тогда подключитесь.".to_owned(),
        (Said::Closed, Lang::En) => "The console has closed the table.".to_owned(),
        (Said::Closed, Lang::Fr) => "La console a fermé la table.".to_owned(),
        (Said::Closed, Lang::Ru) => "Консоль закрыла стол.".to_owned(),
        (Said::Earlier(s), Lang::En) => format!("Said to you last: {s}"),
        (Said::Earlier(s), Lang::Fr) => format!("Dernière annonce pour vous : {s}"),
        (Said::Earlier(s), Lang::Ru) => format!("Последнее сообщение вам: {s}"),
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Said<'a> {
    Connected(TableNo, Color),
    NotUnderstood(&'a str),
    NoSuchMan(Role, Square),
    /// A move written as chess players write it (`Nf3`) that none of his men can make.
    NoManGoes(Role, Square),
    /// One that several of his men can make: the squares they stand on.
    Which(Role, &'a [Square]),
    MyMen(&'a str),
    NothingYet,
    /// The commands, with the questions of the table's rule set only (all, when unknown).
    Help(Option<RuleSet>),
    /// Whose move it is ("turn"; and to a player who connects).
    Turn(Turn),
    TooFast(&'a str),
    /// A line that could not be read or kept, and why (never "error:", which his terminal
    /// takes for the end of the connection).
    NotTaken(&'a str),
    WrongCode(TableNo, Color),
    TooManyWrong,
    Taken(TableNo, Color),
    NotReading,
    Released,
    /// His seat file was used again by a new terminal, which took the seat.
    Replaced,
    Closed,
    /// The console stops with the game unfinished: it is kept.
    Stopped,
    /// The last words meant for him, said again when he connects.
    Earlier(&'a str),
}

/// Whose move it is, as a player may be told at any time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Turn {
    Yours,
    Theirs,
    Over,
}

/// The commands a player may type, each with what it does when its name does not say it,
/// and only the questions his rule set has: "any" answered "Illegal move" where the rules
/// have no such question baffles a player who cannot see why.
fn help(rules: Option<RuleSet>, lang: Lang) -> String {
    let any = rules.is_none_or(RuleSet::has_any_question);
    let rebuffs = rules.is_none_or(|r| r == RuleSet::Rand);
    let (any_words, rebuffs_words, before, after) = match lang {
        Lang::En => (
            "any (are there pawn captures?); ",
            "rebuffs (how many tries your opponent's last turn took); ",
            "Commands: a try as g1f3 (from and to squares), Ng1f3 (with the man's letter), e7e8n (a promotion), Nf3 or exd5 (as chess players write moves, read on your own men), O-O or castle kingside, O-O-O or castle queenside; ",
            "promote q, r, b or n (the piece for your next promotion); repeat (the last message again); my men; turn (whose move it is); draw (offer a draw, or accept the one offered); resign (at once); help.",
        ),
        Lang::Fr => (
            "any (y a-t-il des prises de pion ?) ; ",
            "rebuffs (combien d'essais le dernier tour adverse a pris) ; ",
            "Commandes : un coup comme g1f3 (case de départ et d'arrivée), Ng1f3 (avec la lettre de la pièce), e7e8n (une promotion), Nf3 ou exd5 (en notation algébrique, lue sur vos pièces), O-O ou castle kingside, O-O-O ou castle queenside ; ",
            "promote q, r, b ou n (la pièce de votre prochaine promotion) ; repeat (le dernier message) ; my men (vos pièces) ; turn (à qui de jouer) ; draw (proposer la nulle, ou accepter celle proposée) ; resign (abandon immédiat) ; help.",
        ),
        Lang::Ru => (
            "any (есть ли взятия пешкой?); ",
            "rebuffs (сколько попыток сделал соперник в прошлый ход); ",
            "Команды: ход как g1f3 (поле откуда и куда), Ng1f3 (с буквой фигуры), e7e8n (превращение), Nf3 или exd5 (алгебраическая запись, по вашим фигурам), O-O или castle kingside, O-O-O или castle queenside; ",
            "promote q, r, b или n (фигура для следующего превращения); repeat (последнее сообщение); my men (ваши фигуры); turn (чей ход); draw (предложить ничью или принять предложенную); resign (сдаться сразу); help.",
        ),
    };
    let mut text = before.to_owned();
    if any {
        text.push_str(any_words);
    }
    if rebuffs {
        text.push_str(rebuffs_words);
    }
    text + after
}

fn color_word(c: Color, lang: Lang) -> &'static str {
    match (c, lang) {
        (Color::White, Lang::En) => "white",
        (Color::Black, Lang::En) => "black",
        (Color::White, Lang::Fr) => "blancs",
        (Color::Black, Lang::Fr) => "noirs",
        (Color::White, Lang::Ru) => "белые",
        (Color::Black, Lang::Ru) => "чёрные",
    }
}
