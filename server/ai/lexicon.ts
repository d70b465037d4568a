/**
 * The fixed multilingual lexicon of normalize.ts: stop words, and concepts (one term for the same
 * customer-service idea in English, French, Spanish and German, accent-free; multi-word phrases
 * joined with '_'). General vocabulary of shops, cafés and service businesses written from
 * general knowledge: no per-account data, and nothing copied from the held-out evaluation sets
 * (bench/ai-eval/README.md says how it was developed).
 */

export const STOP_WORDS =
  // English
  'a an the is are was were be been am do does did doing have has had i me my we our us you your yours it its this that these ' +
  'those there here to of in on at for from by with about as into and or but if so than then can could would should will shall ' +
  'may might must please hi just also any some get got need want like know tell let me them they their he she his her what which ' +
  'who whom whose im ive id youre dont doesnt cant isnt arent still very really much many more most thing things way there yes no ' +
  'how where when why make makes made serve serves offer offers provide provides anything something okay ok possible ' +
  'come coming go going find give given put kind sort type one ones someone somewhere something else ever well up out down over ' +
  'would wed ill youll there theres whats wheres hows lets able all every each own same such only too ' +
  // French
  'le la les un une des du de d l et ou mais donc est sont etre avoir je j tu il elle nous vous ils elles me te se mon ma mes ' +
  'ton ta tes son sa ses notre votre vos leur leurs ce cet cette ces qui que qu quoi dans sur pour par avec en au aux y ne ' +
  'pas plus s c n est ai as avez faire fait faites peut peux pouvez puis quel quelle quels quelles svp merci bonjour vos nos ou comment quand servez proposez ' +
  'on ont a chez tout tous toute toutes aussi tres bien si il ca cela ceci celui celle dois doit devez veux voudrais aimerais possible ' +
  // Spanish
  'el los las unos unas del al es son ser estar esta estan yo tu usted ustedes nosotros mi mis su sus nuestro nuestra que cual ' +
  'cuales en con por para como se lo le les ya hay puedo puede pueden tienen tiene tengo hacer hacen hace me te nos muy favor sirven ofrecen cuando ' +
  'un una algo alguna alguno algun donde quiero quisiera podria podemos tambien todo todos toda todas este estos esa ese eso ' +
  // German
  'der die das den dem des ein eine einen einem einer und oder aber ist sind war bin bist hat habe haben ich du er sie es wir ' +
  'ihr mein meine dein deine unser unsere euer ihre mir mich dir dich uns euch zu von mit fur auf an im am um bei nach aus als ' +
  'auch noch nicht kein keine kann konnen konnt wird werden gibt es bitte man was welche welcher welches wie eure euer habt hast per macht machen bietet wann ' +
  'wo woher wohin muss mussen soll sollte mochte mochten darf durfen gern gerne etwas alle alles ja nein dort hier mal denn einen eurem eurer euren';

const CONCEPT_LIST: Record<string, string> = {
  ship: 'ship shipping shipped ships shipment deliver delivery delivered deliveries courier post postal envoi envoyer envoyez expedier expedition expediez livraison livrer livrez livre envio envios enviar envian envias entrega entregas entregar entregan domicilio a_domicilio versand versenden versendet versende verschicken liefern lieferung liefert zustellung zustellen home_delivery',
  international: 'international internationally worldwide abroad overseas global foreign countries country world nationwide etranger internationale monde pays internacional internacionalmente extranjero mundo paises ausland weltweit internationalen lander welt',
  price: 'price prices pricing cost costs costing fee fees charge charges expensive cheap cheaper rate rates prix cout couts combien tarif tarifs coute coutent cher moins_cher precio precios cuesta cuestan cuanto costo coste tarifa caro barato preis preise kosten kostet wieviel teuer gunstig billig gebuhr gebuhren how_much',
  pay: 'pay paying payment payments paid payer paiement paiements pagar pago pagos bezahlen zahlung zahlen bezahlung',
  card: 'card cards credit debit contactless visa mastercard carte_bancaire carte_de_credit carte cartes tarjeta tarjetas karte karten kreditkarte ec_karte',
  cash: 'cash especes liquide efectivo bargeld',
  allow: 'allow allowed allows accept accepted accepts permit permitted welcome autorise autorises autorisee accepte acceptes acceptez admis permitido permitidos permiten aceptan aceptar admiten erlaubt erlauben akzeptiert akzeptieren willkommen',
  buy: 'buy buying bought purchase sell sells selling sold acheter achat vendez vendre vendent comprar compra venden vender kaufen kauf verkauft verkaufen',
  coffee: 'coffee coffees espresso cappuccino latte cafe cafes kaffee cafeteria',
  tea: 'tea teas the_vert infusion tee',
  chocolate: 'chocolate chocolat schokolade cocoa cacao kakao',
  cake: 'cake cakes gateau gateaux tarta tartas pastel pasteles torte torten kuchen',
  pastry: 'pastry pastries viennoiserie viennoiseries patisserie patisseries bolleria pasteleria reposteria geback feingeback',
  bread: 'bread breads loaf loaves pain pains pan brot brote brot',
  milk: 'milk lait leche milch dairy laitier lacteo lacteos milchprodukte',
  sugar: 'sugar sugars sucre azucar zucker',
  egg: 'egg eggs oeuf oeufs huevo huevos ei eier',
  meat: 'meat meats viande carne carnes fleisch',
  flour: 'flour farine harina mehl',
  soup: 'soup soups soupe soupes sopa sopas suppe suppen',
  lunch: 'lunch lunches dejeuner almuerzo mittagessen mittag',
  breakfast: 'breakfast petit_dejeuner desayuno fruhstuck',
  menu: 'menu menus carte_du_jour menu_del_dia speisekarte karte_menu',
  fresh: 'fresh freshly frais fraiche fraiches fresco fresca frescos frisch frische',
  organic: 'organic bio biologique organico ecologico okologisch',
  ingredient: 'ingredient ingredients recipe ingredient ingredients recette ingrediente ingredientes receta zutat zutaten rezept',
  without: 'without sans sin ohne free_of',
  takeaway: 'takeaway take_away takeout take_out to_go a_emporter emporter para_llevar zum_mitnehmen mitnehmen',
  pickup: 'pickup pick_up pick_it_up collect collection click_and_collect retirer retrait recuperer recoger recogida abholen abholung',
  toilet: 'toilet toilets restroom restrooms bathroom bathrooms washroom toilette toilettes wc bano banos aseo aseos servicios toiletten',
  photo: 'photo photos picture pictures image images foto fotos bild bilder',
  seat: 'seat seats seating sit sitting table tables inside indoors indoor asseoir place_assise sentarse asiento asientos mesa mesas dentro sitzen sitzplatz sitzplatze tisch tische drinnen',
  eat: 'eat eating food meal meals manger repas nourriture comer comida comidas essen speisen mahlzeit',
  refund: 'refund refunds refunded reimburse money_back rembourser remboursement rembourse reembolso reembolsar reembolsan devolver_dinero devolucion_del_dinero ruckerstattung erstatten erstattung geld_zuruck',
  return: 'return returns returning send_back exchange retour retourner renvoyer echanger echange devolucion devolver devoluciones cambio cambiar rucksendung zuruckschicken zurucksenden umtausch umtauschen ruckgabe zuruckgeben',
  open: 'open opens opening hours hour close closes closing closed what_time ouvert ouverte ouverts ouvrez ouvre ouverture horaires horaire ferme fermez fermeture abierto abiertos abren abre apertura horario horarios cierran cierra cerrado a_que_hora geoffnet offnen offnungszeiten offnet schliessen schliesst geschlossen uhrzeit um_wie_viel_uhr',
  weekend: 'weekend weekends saturday saturdays sunday sundays samedi samedis dimanche dimanches week_end sabado sabados domingo domingos finde samstag samstags sonntag sonntags wochenende',
  holiday: 'holiday holidays christmas feries ferie jours_feries noel festivo festivos navidad feiertag feiertage feiertagen weihnachten',
  today: 'today tonight aujourd_hui ce_soir hoy esta_noche heute',
  tomorrow: 'tomorrow demain manana morgen',
  morning: 'morning mornings early matin tot madrugada temprano fruh vormittag',
  order: 'order orders ordered ordering commande commandes commander pedido pedidos pedir bestellung bestellungen bestellen bestellt',
  advance: 'advance ahead notice beforehand lead_time in_advance pre_order preorder avance a_l_avance anticipacion antelacion con_antelacion vorher im_voraus vorbestellen vorbestellung',
  online: 'online on_line en_ligne en_linea web app application aplicacion',
  websit: 'website websites site site_web sitio_web pagina_web webseite homepage internetseite',
  track: 'track tracking trace status suivi suivre tracer seguimiento rastrear rastreo localizar sendungsverfolgung verfolgen nachverfolgen',
  cancel: 'cancel cancels cancelling canceling cancellation call_off terminate stop resilier resiliation annuler annulation anular cancelar cancelacion stornieren storno kundigen absagen',
  account: 'account accounts login log_in sign_in signin profile compte connexion connecter cuenta iniciar_sesion perfil konto anmelden anmeldung profil',
  password: 'password passwords mot_de_passe mdp contrasena clave passwort kennwort',
  contact: 'ring dial contact reach call phone telephone email mail number joindre appeler courriel numero contacter llamar telefono correo contactar kontakt erreichen anrufen telefon nummer kontaktieren',
  location: 'street road avenue lane boulevard rue calle avenida strasse address located location situated where_is adresse situe situee trouve se_trouve direccion ubicacion ubicado donde_esta donde_estan adresse standort befindet wo_ist',
  shop: 'store stores shop shops boutique magasin tienda laden geschaft filiale',
  book: 'book booking bookings reserve reservation reservations appointment appointments schedule sign_up register reserver rendez_vous rdv inscrire inscription reservar reserva reservas cita citas inscribirse inscripcion apuntarse buchen buchung reservieren reservierung termin anmelden',
  discount: 'discount discounts discounted coupon coupons promo promotion promo_code sale deal deals reduction reductions remise soldes descuento descuentos cupon oferta ofertas rebaja rebajas rabatt rabatte gutscheincode angebot angebote aktion',
  loyalty: 'loyalty reward rewards points stamp stamps fidelite carte_de_fidelite recompense puntos fidelidad tarjeta_de_fidelidad treue treuekarte bonuspunkte punkte',
  gift: 'gift gifts gift_card voucher vouchers present cadeau cadeaux cheque_cadeau carte_cadeau bon_cadeau regalo regalos tarjeta_regalo vale geschenk geschenke gutschein gutscheine geschenkgutschein',
  warranty: 'warranty warranties guarantee guaranteed garantie garanti garantia garantizado gewahrleistung',
  repair: 'mend mended mending repair repairs repaired fix fixed fixing reparer reparation reparations reparar reparacion reparaciones arreglar reparieren reparatur reparaturen',
  rent: 'rent rental rentals hire renting louer loue alquilar alquiler alquilan mieten miete vermieten verleih leihen ausleihen',
  course: 'course courses class classes lesson lessons workshop workshops training learn teach cours lecon lecons atelier ateliers formation apprendre curso cursos clase clases leccion taller talleres aprender ensenar kurs kurse unterricht lernen schulung',
  beginner: 'beginner beginners novice first_time debutant debutants debutante principiante principiantes anfanger einsteiger',
  equipment: 'equipment gear kit materiel equipement equipo equipamiento material ausrustung ausrustungen',
  insurance: 'insurance insured assurance assure seguro asegurado versicherung versichert',
  certificate: 'qualification qualifications qualified diploma diplomas certificate certificates certification certified licence license diplome certificat certifie certificado certificacion licencia zertifikat zertifizierung lizenz schein',
  age: 'age ages old aged minimum_age years_old age_minimum ans edad anos alter jahre',
  group: 'group groups team groupe groupes grupo grupos gruppe gruppen',
  private: 'private privately prive privee privado privada privat private_session',
  event: 'event events party parties celebration celebrations evenement evenements fete fetes evento eventos fiesta fiestas celebracion veranstaltung veranstaltungen feier feiern party',
  birthday: 'birthday birthdays anniversaire anniversaires cumpleanos geburtstag geburtstage',
  wedding: 'wedding weddings marriage mariage mariages boda bodas hochzeit hochzeiten',
  custom: 'custom customised customized personalised personalized bespoke tailor_made personnalise personnalisee personnalises sur_mesure personalizado personalizada personalizados personalizadas individuell personalisiert massgeschneidert',
  weather: 'weather forecast meteo clima wetter',
  subscription: 'subscription subscriptions subscribe membership plan plans abonnement abonner adhesion suscripcion suscribir membresia abo mitgliedschaft',
  free: 'free gratis gratuit gratuite gratuits gratuitement kostenlos kostenfrei umsonst no_charge',
  duration: 'ready finished long how_long how_much_time how_many_days days weeks delay delai jours semaines combien_de_temps dias semanas cuanto_tiempo tarda tardan tage wochen dauer dauert wie_lange',
  stock: 'available availability stock in_stock out_of_stock sold_out disponible disponibles disponibilite rupture existencias agotado verfugbar lieferbar vorratig ausverkauft',
  vegan: 'vegan vegans plant_based vegetalien vegetalienne vegane veganes vegano vegana veganos veganas',
  vegetarian: 'vegetarian veggie meat_free vegetarien vegetarienne vegetariano vegetariana vegetarisch',
  gluten: 'gluten gluten_free celiac coeliac sans_gluten sin_gluten glutenfrei zoliakie',
  allergy: 'allergy allergies allergen allergens allergic nuts nut peanut peanuts allergie allergene allergenes noix arachide alergia alergias alergeno alergenos nueces cacahuete allergien nusse nuss erdnuss',
  parking: 'parking park car garer stationnement voiture aparcar aparcamiento estacionamiento coche parken parkplatz parkplatze auto',
  wifi: 'wifi wi_fi internet wlan',
  pet: 'pet pets dog dogs cat cats animal animals chien chiens chat chats animaux perro perros gato gatos mascota mascotas hund hunde katze haustier haustiere tiere',
  child: 'child children kid kids baby babies toddler toddlers family families enfant enfants bebe bebes famille nino ninos nina ninas familia kind kinder kleinkind familie',
  size: 'size sizes sizing fit measurement taille tailles pointure mesure talla tallas medida grosse grossen passform',
  job: 'job jobs hiring hire_staff career careers vacancy vacancies work_for work_here employment emploi emplois recrutement recrutez carriere recrute empleo empleos trabajo trabajar contratando vacante stelle stellen karriere arbeiten jobangebot',
  accessibility: 'wheelchair accessible accessibility disabled step_free fauteuil_roulant handicap accesibilidad accesible silla_de_ruedas rollstuhl barrierefrei rollstuhlgerecht',
  invoice: 'invoice invoices receipt receipts bill facture factures recu factura facturas recibo rechnung rechnungen quittung',
  cancelpolicy: 'policy policies rules conditions terms politique regles politica reglas richtlinie bedingungen',
  human: 'human person agent someone representative staff operator humain personne conseiller quelqu_un humano persona agente alguien mensch mitarbeiter jemand',
  language: 'language languages english french spanish german speak langue langues anglais francais parler idioma idiomas ingles frances espanol hablar sprache sprachen englisch deutsch sprechen',
  info: 'information informations info details detail list renseignement renseignements informacion informaciones detalles informationen angaben',
  product: 'product products item items article articles produit produits producto productos articulo articulos produkt produkte artikel ware waren',
  new: 'new brand_new latest neuf nouveau nouvelle nuevo nueva nuevos neu neue neues',
  // Added with issue 17 (passages), from the source-kind tuning business's failures and general
  // knowledge of service businesses: who works there, parts, upkeep, identity papers, trying before buying, history, students.
  staff: 'staff employee employees mechanic mechanics technician technicians engineer engineers personnel employe employes empleado empleados tecnico tecnicos mitarbeiter techniker',
  part: 'part parts component components spare spares spare_part spare_parts piece_detachee pieces_detachees repuesto repuestos recambio recambios ersatzteil ersatzteile',
  upkeep: 'overhaul overhauls maintenance maintain servicing tune_up tuneup checkup check_up inspection entretien entretenir mantenimiento wartung inspektion',
  identity: 'identification passport passports identity photo_id id_card identite piece_d_identite pasaporte identificacion ausweis reisepass personalausweis',
  try: 'try trial test_ride try_out essayer essai probar prueba probieren probefahrt',
  history: 'founded founder founders established history fonde fondee fondateur historia fundado fundada fundador gegrundet grunder geschichte',
  student: 'student students pupil pupils learner learners etudiant etudiants etudiante estudiante estudiantes studenten schuler',
  used: 'pre_owned preowned used second_hand secondhand refurbished occasion d_occasion reconditionne usado usados reacondicionado gebraucht gebrauchte',
};

export const CONCEPTS = CONCEPT_LIST;
