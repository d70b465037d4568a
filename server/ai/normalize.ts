/**
 * Multilingual-tolerant text normalization for retrieval: accents folded, stop words dropped
 * (English, French, Spanish, German), common customer-service words mapped to one concept
 * across the four languages (so "livraison", "envío" and "shipping" meet), and other words
 * reduced by light suffix stripping and truncation. A fixed, general lexicon: no per-account data.
 */

const STOP = new Set(
  (
    // English
    'a an the is are was were be been am do does did doing have has had i me my we our us you your yours it its this that these ' +
    'those there here to of in on at for from by with about as into and or but if so than then can could would should will shall ' +
    'may might must please hi just also any some get got need want like know tell let me them they their he she his her what which ' +
    'who whom whose im ive youre dont doesnt cant isnt arent still very really much many more most thing things way there yes no ' +
    'how where when why make makes made serve serves offer offers provide provides anything something okay ok possible ' +
    // French
    'le la les un une des du de d l et ou mais donc est sont etre avoir je j tu il elle nous vous ils elles me te se mon ma mes ' +
    'ton ta tes son sa ses notre votre vos leur leurs ce cet cette ces qui que qu quoi dans sur pour par avec sans en au aux y ne ' +
    'pas plus s c n est ai as avez faire fait faites peut peux pouvez puis quel quelle quels quelles svp merci bonjour vos nos ou comment quand servez proposez ' +
    // Spanish
    'el los las unos unas del al es son ser estar esta estan yo tu usted ustedes nosotros mi mis su sus nuestro nuestra que cual ' +
    'cuales en con sin por para como se lo le les ya hay puedo puede pueden tienen tiene tengo hacer hacen hace me te nos muy favor sirven ofrecen cuando ' +
    // German
    'der die das den dem des ein eine einen einem einer und oder aber ist sind war bin bist hat habe haben ich du er sie es wir ' +
    'ihr mein meine dein deine unser unsere euer ihre mir mich dir dich uns euch zu von mit fur auf an im am um bei nach aus als ' +
    'auch noch nicht kein keine kann konnen konnt wird werden gibt es bitte man was welche welcher welches wie eure euer habt hast per macht machen bietet wann'
  ).split(/\s+/),
);

/** Concept -> words in en/fr/es/de (accent-free). Multi-word phrases are joined with '_'. */
const CONCEPTS: Record<string, string> = {
  ship: 'ship shipping shipped ships shipment deliver delivery delivered deliveries post courier envoi envoyer envoyez expedier expedition expediez livraison livrer livrez livre envio envios enviar envian envias entrega entregar entregan versand versenden versendet versende liefern lieferung liefert zustellung',
  international: 'international internationally worldwide abroad overseas global foreign countries country world etranger internationale monde pays internacional internacionalmente extranjero mundo paises ausland weltweit international internationalen lander welt',
  price: 'price prices pricing cost costs costing fee fees charge charges expensive cheap prix cout couts combien tarif tarifs coute coutent payer precio precios cuesta cuestan cuanto costo coste tarifa preis preise kosten kostet wieviel teuer gebuhr',
  pay: 'pay paying payment payments paid accept accepted accepts acceptez acceptes aceptan aceptar akzeptiert akzeptieren payer paiement paiements pagar pago pagos bezahlen zahlung zahlen',
  card: 'card cards credit debit contactless visa mastercard carte cartes tarjeta tarjetas karte karten kreditkarte',
  cash: 'cash especes liquide efectivo bargeld',
  buy: 'buy buying bought purchase sell sells selling sold acheter achat vendez vendre vendent comprar compra venden vender kaufen kauf verkauft verkaufen',
  coffee: 'coffee coffees espresso cappuccino latte cafe cafes kaffee',
  cake: 'cake cakes gateau gateaux tarta tartas pastel pasteles torte torten kuchen',
  bread: 'bread breads loaf loaves pain pains pan brot brote',
  milk: 'milk lait leche milch',
  seat: 'seat seats seating sit sitting table tables asseoir sentarse asiento asientos sitzen sitzplatz tisch',
  eat: 'eat eating food meal manger repas comer comida essen speisen',
  refund: 'refund refunds refunded reimburse money_back rembourser remboursement rembourse reembolso reembolsar reembolsan devolver_dinero ruckerstattung erstatten erstattung geld_zuruck',
  return: 'return returns returning send_back exchange retour retourner renvoyer echanger echange devolucion devolver devoluciones cambio cambiar rucksendung zuruckschicken zurucksenden umtausch umtauschen ruckgabe',
  open: 'open opens opening hours hour close closes closing closed ouvert ouverte ouvrez ouvre ouverture horaires horaire ferme fermez fermeture abierto abiertos abren abre apertura horario horarios cierran cierra cerrado geoffnet offnen offnungszeiten offnet schliessen schliesst geschlossen uhrzeit',
  weekend: 'weekend weekends saturday saturdays sunday sundays samedi samedis dimanche dimanches week-end sabado sabados domingo domingos finde samstag samstags sonntag sonntags wochenende',
  holiday: 'holiday holidays christmas feries ferie noel festivo festivos navidad feiertag feiertage weihnachten',
  order: 'order orders ordered ordering commande commandes commander pedido pedidos pedir bestellung bestellungen bestellen bestellt',
  track: 'track tracking trace status suivi suivre tracer seguimiento rastrear rastreo localizar sendungsverfolgung verfolgen nachverfolgen',
  cancel: 'cancel cancels cancelling canceling cancellation annuler annulation anular cancelar cancelacion stornieren storno kundigen absagen',
  account: 'account accounts login log_in sign_in signin profile compte connexion connecter cuenta iniciar_sesion perfil konto anmelden anmeldung profil',
  password: 'password passwords mot_de_passe mdp contrasena clave passwort kennwort',
  contact: 'contact reach call phone telephone email mail number joindre appeler telephone courriel numero contacter llamar telefono correo contactar numero kontakt erreichen anrufen telefon nummer kontaktieren',
  location: 'address located location situated store shop adresse situe trouve boutique magasin direccion ubicacion ubicado donde_estan tienda adresse standort befindet laden geschaft',
  book: 'book booking bookings reserve reservation reservations appointment appointments reserver reservation rendez-vous rdv reservar reserva reservas cita citas buchen buchung reservieren reservierung termin',
  discount: 'discount discounts coupon coupons promo promotion code sale deal reduction reductions remise soldes promo descuento descuentos cupon oferta rebaja rabatt rabatte gutscheincode angebot aktion',
  gift: 'gift gifts gift_card voucher cadeau cheque_cadeau carte_cadeau regalo tarjeta_regalo vale geschenk gutschein geschenkgutschein',
  warranty: 'warranty warranties guarantee guaranteed garantie garanti garantia garantizado gewahrleistung garantie',
  subscription: 'subscription subscriptions subscribe membership plan plans abonnement abonner adhesion suscripcion suscribir membresia abo abonnement mitgliedschaft',
  free: 'free gratis gratuit gratuite gratuits gratuitement kostenlos kostenfrei umsonst',
  duration: 'long days day weeks time take takes delay delai jours jour semaines temps prend combien_de_temps dias dia semanas tiempo tarda tardan cuanto_tiempo tage tag wochen dauer dauert lange',
  stock: 'available availability stock in_stock out_of_stock sold_out disponible disponibles disponibilite rupture existencias agotado verfugbar lieferbar vorratig ausverkauft',
  vegan: 'vegan vegans plant_based vegetalien vegane vegano vegana veganos',
  vegetarian: 'vegetarian veggie vegetarien vegetarienne vegetariano vegetariana vegetarisch',
  gluten: 'gluten gluten-free celiac coeliac sans_gluten sin_gluten glutenfrei zoliakie',
  allergy: 'allergy allergies allergen allergens allergic nuts peanut allergie allergies allergene noix alergia alergias alergeno nueces allergie allergien allergene nusse',
  parking: 'parking park car garer stationnement voiture aparcar aparcamiento estacionamiento coche parken parkplatz auto',
  wifi: 'wifi wi-fi internet wlan',
  pet: 'pet pets dog dogs cat cats animal animals chien chiens chat chats animaux perro perros gato gatos mascota mascotas hund hunde katze haustier haustiere tiere',
  child: 'child children kid kids baby babies family enfant enfants bebe famille nino ninos bebe familia kind kinder baby familie',
  size: 'size sizes sizing fit measurement taille tailles pointure mesure talla tallas medida grosse grossen passform',
  job: 'job jobs hiring career careers work_for employment emploi emplois recrutement carriere recrute empleo empleos trabajo trabajar contratando stelle stellen job karriere arbeiten',
  accessibility: 'wheelchair accessible accessibility disabled fauteuil_roulant accessible accesibilidad silla_de_ruedas rollstuhl barrierefrei',
  invoice: 'invoice invoices receipt receipts bill facture factures recu factura facturas recibo rechnung rechnungen quittung',
  cancelpolicy: 'policy policies rules conditions politique regles politica reglas richtlinie bedingungen',
  human: 'human person agent someone representative staff operator humain personne conseiller quelqu_un humano persona agente alguien mensch person mitarbeiter jemand',
  language: 'language languages english french spanish german speak langue langues anglais francais parler idioma idiomas ingles frances espanol hablar sprache sprachen englisch deutsch sprechen',
};

const LEXICON = new Map<string, string>();
const PHRASES: [string, string][] = [];
for (const [concept, words] of Object.entries(CONCEPTS)) {
  for (const w of words.split(/\s+/)) {
    if (w.includes('_')) PHRASES.push([w.replace(/_/g, ' '), concept]);
    else if (!LEXICON.has(w)) LEXICON.set(w, concept);
  }
}
// Longest phrases first so "mot de passe" wins over a shorter overlap.
PHRASES.sort((a, b) => b[0].length - a[0].length);

/** Lowercase, accents folded, punctuation to spaces; keeps digits. */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ies', 'ied', 'ed', 'es', 'er', 'en', 's', 'e'];

/** Light, language-agnostic stemming: one common suffix stripped, then truncation to 6 letters. */
export function stem(word: string): string {
  if (/^\d+$/.test(word)) return word;
  let w = word;
  for (const suffix of SUFFIXES) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      // "wrapping" -> "wrapp" -> "wrap"
      if (/([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  return w.length > 6 ? w.slice(0, 6) : w;
}

function conceptOf(word: string): string | undefined {
  const direct = LEXICON.get(word);
  if (direct) return direct;
  // Plural or verb forms of a lexicon word ("deliveries" -> "delivery").
  for (const suffix of ['s', 'es', 'ed', 'ing', 'en', 'e', 'n']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) {
      const base = LEXICON.get(word.slice(0, -suffix.length));
      if (base) return base;
    }
  }
  return undefined;
}

/** The retrieval terms of a text: concepts for known words, stems for the rest, stop words dropped. */
export function terms(text: string): string[] {
  let folded = ` ${fold(text)} `;
  const out: string[] = [];
  for (const [phrase, concept] of PHRASES) {
    if (folded.includes(` ${phrase} `)) {
      out.push(concept);
      folded = folded.split(` ${phrase} `).join(' ');
    }
  }
  for (const word of folded.split(' ')) {
    if (!word) continue;
    const concept = conceptOf(word);
    if (concept) {
      out.push(concept);
      continue;
    }
    if (STOP.has(word) || word.length < 2) continue;
    out.push(stem(word));
  }
  return out;
}
