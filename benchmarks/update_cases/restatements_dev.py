"""Restatements: the same fact said again weeks later, in other words, other units, or in Spanish, German or French.
A development set for issue 43, written after the frozen blind set ran a second time and showed restatements flagged
even by a judge that answers from the labels (its cases were not read); looked at while the cause was sought, so
its figures are a development set's. Nothing here may be flagged."""

from __future__ import annotations

from .case import Case, R

RESTATEMENT_DEV_CASES: tuple[Case, ...] = (
    Case(R, ("The user's sister lives in Porto.", "The user's sister is based in Porto."),
         "Where does the user's sister live?"),
    Case(R, ("The standup is at 9:15.", "We have the standup at a quarter past nine."), "When is the standup?"),
    Case(R, ("The backup job runs every 6 hours.", "Every six hours the backup job runs."),
         "How often does the backup job run?"),
    Case(R, ("The upload limit is 25 MB.", "Uploads are capped at 25 megabytes."), "What is the upload limit?"),
    Case(R, ("Ines works as a nurse.", "Ines is a nurse."), "What does Ines do?"),
    Case(R, ("The user drives a blue Golf.", "The user's car is a blue Golf."), "What car does the user drive?"),
    Case(R, ("María vive en Sevilla.", "María sigue viviendo en Sevilla."), "¿Dónde vive María?", language="es"),
    Case(R, ("El gimnasio abre a las 7.", "El gimnasio abre a las siete."), "¿A qué hora abre el gimnasio?",
         language="es"),
    Case(R, ("Jonas arbeitet bei Siemens.", "Jonas ist bei Siemens angestellt."), "Wo arbeitet Jonas?", language="de"),
    Case(R, ("Der Kurs beginnt um 18 Uhr.", "Der Kurs fängt um 18 Uhr an."), "Wann beginnt der Kurs?", language="de"),
    Case(R, ("Claire habite à Lyon.", "Claire vit à Lyon."), "Où habite Claire ?", language="fr"),
    Case(R, ("La réunion est le mardi.", "La réunion a lieu le mardi."), "Quand est la réunion ?", language="fr"),
    # the same value written another way
    Case(R, ("The flight leaves at 6 pm.", "The flight leaves at 18:00."), "When does the flight leave?"),
    Case(R, ("The budget is $2,000.", "The budget is 2000 dollars."), "What is the budget?"),
    Case(R, ("The meeting lasts 90 minutes.", "The meeting lasts an hour and a half."), "How long is the meeting?"),
    Case(R, ("The office is on the 3rd floor.", "The office is on the third floor."), "Which floor is the office on?"),
    Case(R, ("The rent is 1.200 € a month.", "The rent is 1,200 euros a month."), "What is the rent?"),
    Case(R, ("La cuota es de 50 euros.", "La cuota es de cincuenta euros."), "¿Cuánto es la cuota?", language="es"),
    Case(R, ("Der Zug fährt um 18 Uhr.", "Der Zug fährt um 18:00 Uhr."), "Wann fährt der Zug?", language="de"),
    Case(R, ("Le loyer est de 900 €.", "Le loyer est de 900 euros."), "Quel est le loyer ?", language="fr"),
    Case(R, ("The package weighs 2 kg.", "The package weighs 2000 grams."), "How much does the package weigh?"),
    Case(R, ("The trial lasts 2 weeks.", "The trial lasts 14 days."), "How long is the trial?"),
)  # fmt: skip
